package rulesets

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/roles"
)

// ManageRulesets is the organization permission that lets a member who is
// not an owner manage the organization's rulesets (owners always may).
const ManageRulesets = "manage_organization_ref_rules"

// mayManage lets through the organization's owners and holders of
// ManageRulesets: anyone outside the organization finds nothing, a member
// without them is refused.
func (s *Service) mayManage(ctx context.Context, org *model.Account, user *model.Account) error {
	a, err := roles.New(s.Store).ActorIn(ctx, org, user)
	if err != nil {
		return err
	}
	if a.Holds(ManageRulesets) {
		return nil
	}
	if !a.Member() {
		return model.ErrNotFound
	}
	return errNotAdmin
}

// OrgList is one page of an organization's rulesets (the given targets
// only, when targets is not empty) and their count.
func (s *Service) OrgList(ctx context.Context, org, user *model.Account, targets []string, limit, offset int) ([]*model.Ruleset, int, error) {
	if err := s.mayManage(ctx, org, user); err != nil {
		return nil, 0, err
	}
	return s.Store.R().OrgRulesets(ctx, org.ID, targets, limit, offset)
}

// OrgGet is one of an organization's rulesets.
func (s *Service) OrgGet(ctx context.Context, org, user *model.Account, id int64) (*model.Ruleset, error) {
	if err := s.mayManage(ctx, org, user); err != nil {
		return nil, err
	}
	return s.orgRuleset(ctx, org, id)
}

func (s *Service) orgRuleset(ctx context.Context, org *model.Account, id int64) (*model.Ruleset, error) {
	r, err := s.Store.R().RulesetByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.OrgID != org.ID {
		return nil, model.ErrNotFound
	}
	return r, nil
}

// OrgCreate makes an organization ruleset.
func (s *Service) OrgCreate(ctx context.Context, org, user *model.Account, in Input) (*model.Ruleset, error) {
	if err := s.mayManage(ctx, org, user); err != nil {
		return nil, err
	}
	r := &model.Ruleset{SourceType: model.RulesetSourceOrganization, OrgID: org.ID, Target: model.RulesetTargetBranch,
		Bypass: []model.BypassActor{}, Rules: []model.RulesetRule{}}
	if err := s.apply(ctx, r, org.ID, in, true); err != nil {
		return nil, err
	}
	if err := s.write(ctx, r, user.ID, 0, org.ID, "created"); err != nil {
		return nil, err
	}
	return s.Store.R().RulesetByID(ctx, r.ID)
}

// OrgUpdate changes an organization ruleset.
func (s *Service) OrgUpdate(ctx context.Context, org, user *model.Account, id int64, in Input) (*model.Ruleset, error) {
	if err := s.mayManage(ctx, org, user); err != nil {
		return nil, err
	}
	r, err := s.orgRuleset(ctx, org, id)
	if err != nil {
		return nil, err
	}
	if err := s.apply(ctx, r, org.ID, in, false); err != nil {
		return nil, err
	}
	if err := s.write(ctx, r, user.ID, 0, org.ID, "edited"); err != nil {
		return nil, err
	}
	return s.Store.R().RulesetByID(ctx, r.ID)
}

// OrgDelete removes an organization ruleset.
func (s *Service) OrgDelete(ctx context.Context, org, user *model.Account, id int64) error {
	if err := s.mayManage(ctx, org, user); err != nil {
		return err
	}
	r, err := s.orgRuleset(ctx, org, id)
	if err != nil {
		return err
	}
	return s.remove(ctx, r, user.ID, 0, org.ID)
}
