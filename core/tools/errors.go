package tools

import "github.com/cairn-dev/cairn/core/errs"

// ErrorBody is the JSON every face uses for a failed call: {"error": {"code", "message"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail names the SPEC §8 code and says what was wrong.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrorOf renders err as the error body.
func ErrorOf(err error) ErrorBody {
	return ErrorBody{Error: ErrorDetail{Code: errs.CodeOf(err).Name(), Message: err.Error()}}
}
