package scim

import (
	"strings"

	filter "github.com/scim2/filter-parser/v2"

	"github.com/hubd/hubd/internal/store"
)

// ParseFilter reads a list's filter parameter: one attribute compared with
// "eq" to a string, the attribute one of allowed (matched ignoring case, as
// RFC 7643 names are). Anything else is a 400 invalidFilter, as GitHub
// answers ("Multiple filters are not supported").
func ParseFilter(raw string, allowed ...string) (store.SCIMFilter, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return store.SCIMFilter{}, nil
	}
	if !strings.Contains(raw, `"`) {
		// GitHub's own examples quote with apostrophes (userName eq 'E012345').
		raw = strings.ReplaceAll(raw, "'", `"`)
	}
	expr, err := filter.ParseFilter([]byte(raw))
	if err != nil {
		return store.SCIMFilter{}, badRequest(InvalidFilter, "The filter %q is not a valid SCIM filter.", raw)
	}
	ae, ok := expr.(*filter.AttributeExpression)
	if !ok || ae.AttributePath.SubAttribute != nil || !strings.EqualFold(string(ae.Operator), "eq") {
		return store.SCIMFilter{}, badRequest(InvalidFilter, "Only one attribute compared with eq is supported: %q.", raw)
	}
	v, ok := ae.CompareValue.(string)
	if !ok {
		return store.SCIMFilter{}, badRequest(InvalidFilter, "The filter's value must be a string: %q.", raw)
	}
	for _, a := range allowed {
		if strings.EqualFold(a, ae.AttributePath.AttributeName) {
			return store.SCIMFilter{Attr: a, Value: v}, nil
		}
	}
	return store.SCIMFilter{}, badRequest(InvalidFilter, "Filtering on %q is not supported (supported: %s).", ae.AttributePath.AttributeName, strings.Join(allowed, ", "))
}
