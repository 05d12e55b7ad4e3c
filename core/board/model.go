package board

import "encoding/json"

// Document is the `cairn board import` input (docs/formats.md): a whole board in one JSON object.
type Document struct {
	Revision  int64             `json:"revision"`
	Projects  []json.RawMessage `json:"projects"`
	Cards     []json.RawMessage `json:"cards"`
	Events    []json.RawMessage `json:"events"`
	Workpads  []json.RawMessage `json:"workpads"`
	Ideas     []json.RawMessage `json:"ideas"`
	Artifacts []json.RawMessage `json:"artifacts"`
	Summaries json.RawMessage   `json:"summaries"`
	Memory    json.RawMessage   `json:"memory"`
}

// Project is a board project; archived projects are never searched.
type Project struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Archived bool   `json:"archived"`
	Memory   bool   `json:"memory"`
}

// Card is a board card (a row of `tasks`); Status is its lane name.
type Card struct {
	ID          string   `json:"id"`
	Project     string   `json:"project"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Type        string   `json:"type"`
	Status      string   `json:"status"`
	Archived    bool     `json:"archived"`
	UpdatedAt   string   `json:"updated_at"`
	WorkspaceID string   `json:"workspace_id"`
}

// Event is one card event; only status_changed and progress_reported notes are searched.
type Event struct {
	ID    string `json:"id"`
	Card  string `json:"card"`
	Type  string `json:"type"`
	Note  string `json:"note"`
	Actor string `json:"actor"`
	At    string `json:"at"`
}

// Workpad is an acceptance item, a check or a question on a card.
type Workpad struct {
	ID          string `json:"id"`
	Card        string `json:"card"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Command     string `json:"command"`
	Evidence    string `json:"evidence"`
	At          string `json:"at"`
}

// Idea is a proposal attached to a card, searched in every status.
type Idea struct {
	ID        string `json:"id"`
	Card      string `json:"card"`
	Title     string `json:"title"`
	Detail    string `json:"detail"`
	Rationale string `json:"rationale"`
	Context   string `json:"context"`
	Status    string `json:"status"`
	At        string `json:"at"`
}

// Artifact is a deliverable of a card: a PR link, a file path, an external issue key.
type Artifact struct {
	ID          string `json:"id"`
	Card        string `json:"card"`
	Title       string `json:"title"`
	Note        string `json:"note"`
	Target      string `json:"target"`
	ExternalKey string `json:"external_key"`
	At          string `json:"at"`
}

// Summary is one version of a card's summary in board/summaries.json; only the latest is searched.
type Summary struct {
	State  string `json:"state"`
	Target string `json:"target"`
	Recap  string `json:"recap"`
	Next   string `json:"next"`
	At     string `json:"at"`
}

// MemoryEntry is a project memory entry in board/memory.json; only active entries are searched.
type MemoryEntry struct {
	ID          string   `json:"id"`
	Project     string   `json:"project"`
	Kind        string   `json:"kind"`
	Title       string   `json:"title"`
	Body        string   `json:"body"`
	Keywords    []string `json:"keywords"`
	Tags        []string `json:"tags"`
	Status      string   `json:"status"`
	ConfirmedAt string   `json:"confirmed_at"`
}

// Source names where a search hit comes from.
type Source string

// The seven sources, in the order hits and docs list them.
const (
	SourceCard     Source = "card"
	SourceSummary  Source = "summary"
	SourceNote     Source = "note"
	SourceWorkpad  Source = "workpad"
	SourceIdea     Source = "idea"
	SourceArtifact Source = "artifact"
	SourceMemory   Source = "memory"
)

// AllSources lists every source in a fixed order; messages, masks and completion use it.
func AllSources() []Source {
	return []Source{SourceCard, SourceSummary, SourceNote, SourceWorkpad, SourceIdea, SourceArtifact, SourceMemory}
}

// sourceIndex is a source's bit position; -1 for an unknown name.
func sourceIndex(s Source) int {
	for i, v := range AllSources() {
		if v == s {
			return i
		}
	}
	return -1
}

func oneOf(s string, valid ...string) bool {
	for _, v := range valid {
		if s == v {
			return true
		}
	}
	return false
}

// searchedEventTypes are the event types whose notes are searched; every other type never is.
func searchedEvent(t string) bool { return t == "status_changed" || t == "progress_reported" }
