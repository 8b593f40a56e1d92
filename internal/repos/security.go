package repos

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// securityKeys are the features of security_and_analysis hubd keeps; the
// others the description lists are refused by name (hubd has no code
// scanning, Dependabot or secret scanning's extra detectors).
var securityKeys = map[string]func(*model.RepoSecurity) *bool{
	"advanced_security":               func(s *model.RepoSecurity) *bool { return &s.AdvancedSecurity },
	"secret_scanning":                 func(s *model.RepoSecurity) *bool { return &s.SecretScanning },
	"secret_scanning_push_protection": func(s *model.RepoSecurity) *bool { return &s.PushProtection },
}

var securityUnavailable = []string{"code_security", "dependabot_security_updates", "secret_scanning_non_provider_patterns",
	"secret_scanning_ai_detection", "secret_scanning_validity_checks", "secret_scanning_delegated_alert_dismissal",
	"secret_scanning_delegated_bypass", "secret_scanning_delegated_bypass_options"}

// applySecurity is cur changed as security_and_analysis v asks, with
// GitHub's rules: Advanced Security only on organizations' repositories;
// on a private or internal repository secret scanning needs Advanced
// Security, and push protection needs secret scanning (turning a
// feature off turns off those that need it).
func applySecurity(cur model.RepoSecurity, v map[string]any, repo *model.Repo, e *errs) model.RepoSecurity {
	next := cur
	asked := map[string]bool{}
	for _, k := range securityUnavailable {
		if _, ok := v[k]; ok {
			e.custom("security_and_analysis", k+" is not available on this server")
		}
	}
	for key, field := range securityKeys {
		raw, ok := v[key]
		if !ok {
			continue
		}
		obj, _ := raw.(map[string]any)
		status, _ := obj["status"].(string)
		if status != "enabled" && status != "disabled" {
			e.invalid("security_and_analysis."+key+".status", status)
			continue
		}
		*field(&next) = status == "enabled"
		asked[key] = status == "enabled"
	}
	if on := asked["advanced_security"]; on && !repo.Owner.IsOrg() {
		e.custom("security_and_analysis", "Advanced Security is only available for repositories owned by an organization")
	}
	if repo.Private() && !next.AdvancedSecurity {
		if asked["secret_scanning"] || asked["secret_scanning_push_protection"] {
			e.custom("security_and_analysis", "Secret scanning requires Advanced Security on a private or internal repository")
		}
		next.SecretScanning, next.PushProtection = false, false
	}
	if !next.SecretScanning {
		if asked["secret_scanning_push_protection"] {
			e.custom("security_and_analysis", "Push protection requires secret scanning to be enabled")
		}
		next.PushProtection = false
	}
	return next
}

// securityEvents are the events of each feature's change, named as the
// audit log names them.
var securityEvents = []struct {
	on, off string
	get     func(model.RepoSecurity) bool
}{
	{"repo.advanced_security_enabled", "repo.advanced_security_disabled", func(s model.RepoSecurity) bool { return s.AdvancedSecurity }},
	{"repository_secret_scanning.enable", "repository_secret_scanning.disable", func(s model.RepoSecurity) bool { return s.SecretScanning }},
	{"repository_secret_scanning_push_protection.enable", "repository_secret_scanning_push_protection.disable",
		func(s model.RepoSecurity) bool { return s.PushProtection }},
}

// saveSecurity stores next when it differs from before, with an event per
// feature changed, in tx.
func saveSecurity(ctx context.Context, tx store.Q, actorID int64, repo *model.Repo, before, next model.RepoSecurity) error {
	if before == next {
		return nil
	}
	if err := tx.SetRepoSecurity(ctx, repo.ID, next); err != nil {
		return err
	}
	for _, ev := range securityEvents {
		if ev.get(before) == ev.get(next) {
			continue
		}
		typ := ev.off
		if ev.get(next) {
			typ = ev.on
		}
		p := map[string]any{"repository_id": repo.ID, "full_name": repo.FullName()}
		if err := tx.AppendEvent(ctx, typ, actorID, repo.ID, OrgID(repo.Owner), p); err != nil {
			return err
		}
	}
	return nil
}
