package tasks

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
)

// A refused value names the field it is about, so each face can point at it in its own words.
func TestRefusalsNameTheirField(t *testing.T) {
	_, subject := CheckSubject("")
	for field, err := range map[string]error{
		"status":      CheckStatus("done"),
		"subject":     subject,
		"description": CheckDescription(strings.Repeat("x", MaxDescriptionKB*1024+1)),
	} {
		if errs.CodeOf(err) != errs.Invalid || errs.FieldOf(err) != field {
			t.Errorf("%s: %v names field %q", field, err, errs.FieldOf(err))
		}
	}
}
