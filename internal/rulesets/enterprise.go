package rulesets

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// The enterprise's rulesets apply to the repositories of the
// organizations their organization condition selects (organization_name
// patterns or organization_id), that their repository_name condition
// selects; they are enforced where an organization's are. Only the
// enterprise's owners reach these operations (the transport checks it).

// EnterpriseList is one page of the enterprise's rulesets and their count.
func (s *Service) EnterpriseList(ctx context.Context, targets []string, limit, offset int) ([]*model.Ruleset, int, error) {
	return s.Store.R().EnterpriseRulesets(ctx, targets, limit, offset)
}

// EnterpriseGet is one of the enterprise's rulesets.
func (s *Service) EnterpriseGet(ctx context.Context, id int64) (*model.Ruleset, error) {
	r, err := s.Store.R().RulesetByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.SourceType != model.RulesetSourceEnterprise {
		return nil, model.ErrNotFound
	}
	return r, nil
}

// EnterpriseCreate makes an enterprise ruleset.
func (s *Service) EnterpriseCreate(ctx context.Context, actorID int64, in Input) (*model.Ruleset, error) {
	r := &model.Ruleset{SourceType: model.RulesetSourceEnterprise, Target: model.RulesetTargetBranch,
		Bypass: []model.BypassActor{}, Rules: []model.RulesetRule{}}
	if err := s.apply(ctx, r, 0, in, true); err != nil {
		return nil, err
	}
	if err := s.write(ctx, r, actorID, 0, 0, "created"); err != nil {
		return nil, err
	}
	return s.Store.R().RulesetByID(ctx, r.ID)
}

// EnterpriseUpdate changes an enterprise ruleset.
func (s *Service) EnterpriseUpdate(ctx context.Context, actorID, id int64, in Input) (*model.Ruleset, error) {
	r, err := s.EnterpriseGet(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.apply(ctx, r, 0, in, false); err != nil {
		return nil, err
	}
	if err := s.write(ctx, r, actorID, 0, 0, "edited"); err != nil {
		return nil, err
	}
	return s.Store.R().RulesetByID(ctx, r.ID)
}

// EnterpriseDelete removes an enterprise ruleset.
func (s *Service) EnterpriseDelete(ctx context.Context, actorID, id int64) error {
	r, err := s.EnterpriseGet(ctx, id)
	if err != nil {
		return err
	}
	return s.remove(ctx, r, actorID, 0, 0)
}
