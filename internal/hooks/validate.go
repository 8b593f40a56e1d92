package hooks

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Events are the event names a hook may subscribe to (GitHub's webhook
// events, from its webhooks descriptions, GHEC's and GHES 3.19's), besides
// "*".
var Events = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`branch_protection_configuration branch_protection_rule cache_sync check_run check_suite
 code_scanning_alert commit_comment create custom_property custom_property_values delete dependabot_alert deploy_key
 deployment deployment_protection_rule deployment_review deployment_status discussion discussion_comment
 dismissal_request_code_scanning dismissal_request_secret_scanning enterprise exemption_request_push_ruleset
 exemption_request_secret_scanning fork
 github_app_authorization gollum installation installation_repositories installation_target issue_comment
 issue_dependencies issues label marketplace_purchase member membership merge_group meta milestone org_block
 organization package page_build personal_access_token_request project project_card project_column projects_v2
 projects_v2_item projects_v2_status_update public pull_request pull_request_review pull_request_review_comment
 pull_request_review_thread push registry_package release repository repository_advisory repository_dispatch
 repository_import repository_ruleset repository_vulnerability_alert secret_scanning_alert
 secret_scanning_alert_location secret_scanning_scan security_advisory security_and_analysis sponsorship star
 status sub_issues team team_add user watch workflow_dispatch workflow_job workflow_run`) {
		m[e] = true
	}
	return m
}()

// Input is the body of a hook creation or update: nil fields were absent.
type Input struct {
	Name         *string
	Config       *ConfigInput
	Events       *[]string
	AddEvents    []string
	RemoveEvents []string
	Active       *bool
}

// ConfigInput is a hook's config as sent: nil fields were absent.
// InsecureSSL holds "0" or "1" already when it was a number.
type ConfigInput struct {
	URL, ContentType, Secret, InsecureSSL *string
}

func invalid(field string, value any) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "Hook", Field: field, Code: "invalid", Value: value}}}
}

func custom(field, msg string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "Hook", Field: field, Code: "custom", Message: msg}}}
}

// errNoURL is GitHub's answer to a hook config without url.
var errNoURL = custom("", "Config must contain URL for webhooks")

// checkName accepts the one hook name GitHub still creates, "web".
func checkName(name *string) error {
	if name != nil && *name != "web" {
		return invalid("name", *name)
	}
	return nil
}

// checkEvents refuses an unknown event name; the list comes back sorted
// and without duplicates.
func checkEvents(list []string) ([]string, error) {
	out := make([]string, 0, len(list))
	for _, e := range list {
		if e != "*" && !Events[e] {
			return nil, invalid("events", e)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out, nil
}

// applyConfig merges a config into h: merge keeps what in leaves out
// (PATCH .../config); otherwise in replaces the whole config, and a secret
// not sent is removed (as GitHub documents for PATCH of a hook).
func (s *Service) applyConfig(h *model.Hook, in *ConfigInput, merge bool) error {
	if !merge {
		h.ContentType, h.Secret, h.InsecureSSL = "form", "", "0"
		h.URL = ""
	}
	if in.URL != nil {
		h.URL = strings.TrimSpace(*in.URL)
	}
	if h.URL == "" {
		return errNoURL
	}
	if err := s.checkURL(h.URL); err != nil {
		return err
	}
	if in.ContentType != nil {
		switch ct := *in.ContentType; ct {
		case "json", "application/json":
			h.ContentType = "json"
		case "form", "application/x-www-form-urlencoded":
			h.ContentType = "form"
		default:
			return invalid("content_type", ct)
		}
	}
	if in.Secret != nil {
		h.Secret = *in.Secret
	}
	if in.InsecureSSL != nil {
		switch v := *in.InsecureSSL; v {
		case "0", "1":
			h.InsecureSSL = v
		default:
			return invalid("insecure_ssl", v)
		}
	}
	return nil
}

// checkURL accepts an absolute http(s) URL whose host is not refused by the
// delivery policy. Names are looked up only when the hook is delivered (a
// name may resolve elsewhere by then), so here only addresses written in
// the URL and localhost are checked.
func (s *Service) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" || u.User != nil {
		return custom("url", "The URL you've entered is not valid. Please make sure that you encode all special characters first")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		if !s.Policy.Allows(netip.MustParseAddr("127.0.0.1")) {
			return unreachable(host)
		}
		return nil
	}
	if ip := net.ParseIP(host); ip != nil {
		addr, _ := netip.AddrFromSlice(ip)
		if !s.Policy.Allows(addr.Unmap()) {
			return unreachable(host)
		}
	}
	return nil
}

func unreachable(host string) error {
	return custom("url", "url is not supported because it isn't reachable over the public Internet ("+host+")")
}
