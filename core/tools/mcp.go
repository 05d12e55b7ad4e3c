package tools

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/errs"
)

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

// NewMCPServer serves every tool of r over MCP; a tool's failure is an MCP tool error (isError with
// the error body as text), never a protocol error, so the model sees it and the server lives on.
func NewMCPServer(r *Registry, version string, c Context) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cairn", Version: version}, nil)
	for _, t := range r.List() {
		t := t
		ro := t.ReadOnly
		s.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.Schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ro, IdempotentHint: ro, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args json.RawMessage
			if req.Params != nil {
				args = req.Params.Arguments
			}
			out, err := t.Call(ctx, c, args)
			if err != nil {
				body, _ := json.Marshal(ErrorOf(err))
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil
			}
			body, err := json.Marshal(out)
			if err != nil {
				body, _ = json.Marshal(ErrorOf(err))
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: json.RawMessage(body)}, nil
		})
	}
	return s
}

func boolPtr(b bool) *bool { return &b }
