// Package tasks is the session task list: a store rebuilt by replaying the session log.
package tasks

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
)

// Statuses in their usual order: pending → inprogress → completed, and deleted.
const (
	Pending    = "pending"
	InProgress = "inprogress"
	Completed  = "completed"
	Deleted    = "deleted"
)

// Statuses lists every valid status, for validation messages and completion.
var Statuses = []string{Pending, InProgress, Completed, Deleted}

// Limits on what one task may hold, so a log stays readable by a model.
const (
	MaxSubjectRunes  = 200
	MaxDescriptionKB = 64
	maxDescription   = MaxDescriptionKB * 1024
	// MaxID is the largest task id any face accepts (a JSON Schema integer fits 32 bits), so the
	// CLI and the tools answer an out-of-range id alike: INVALID_INPUT, not NOT_FOUND.
	MaxID = 1<<31 - 1
)

// OpenTask is the short form listed in a Summary.
type OpenTask struct {
	TaskID  int    `json:"taskid"`
	Status  string `json:"status"`
	Subject string `json:"subject"`
}

// Summary is the store overview every mutating tool returns, so the model sees the whole plan.
type Summary struct {
	Total      int        `json:"total"`
	Pending    int        `json:"pending"`
	InProgress int        `json:"inprogress"`
	Completed  int        `json:"completed"`
	Deleted    int        `json:"deleted"`
	Open       []OpenTask `json:"open"`
	// OpenMore counts the open tasks Open leaves out: it lists at most MaxOpenListed (the
	// in-progress ones first), so every answer's size is bounded whatever the list holds.
	OpenMore int `json:"open_more,omitempty"`
}

// MaxOpenListed bounds Summary.Open. Every TaskCreate and TaskUpdate answers the summary; listing
// every open task made a burst of N creates cost N² bytes (3,000 creates answered 602 MB).
// TaskList answers every task in full beside it.
const MaxOpenListed = 50

// Store holds tasks by id; ids are assigned one above the highest ever seen and never reused.
type Store struct {
	tasks []Task // ordered by id
	next  int
}

// NewStore is an empty store whose first id is 1.
func NewStore() *Store { return &Store{next: 1} }

// Tasks returns every task ordered by id (deleted and completed included).
func (s *Store) Tasks() []Task {
	out := make([]Task, len(s.tasks))
	copy(out, s.tasks)
	return out
}

// Get finds a task by id.
func (s *Store) Get(id int) (Task, bool) {
	i := s.find(id)
	if i < 0 {
		return Task{}, false
	}
	return s.tasks[i], true
}

// NextID is the id the next create will get.
func (s *Store) NextID() int { return s.next }

func (s *Store) find(id int) int {
	i := sort.Search(len(s.tasks), func(i int) bool { return s.tasks[i].TaskID >= id })
	if i < len(s.tasks) && s.tasks[i].TaskID == id {
		return i
	}
	return -1
}

// create numbers t, pending, and adds it.
func (s *Store) create(t Task) Task {
	t.TaskID, t.Status = s.next, Pending
	s.tasks = append(s.tasks, t)
	s.next++
	return t
}

// createAt adds a task under the id the runtime gave it; a task already there is replaced (the
// runtime's store was cleared and numbered again), and later ids continue after it.
func (s *Store) createAt(id int, t Task) Task {
	t.TaskID, t.Status = id, Pending
	if i := s.find(id); i >= 0 {
		s.tasks[i] = t
	} else {
		i := sort.Search(len(s.tasks), func(i int) bool { return s.tasks[i].TaskID >= id })
		s.tasks = append(s.tasks, Task{})
		copy(s.tasks[i+1:], s.tasks[i:])
		s.tasks[i] = t
	}
	if id >= s.next {
		s.next = id + 1
	}
	return t
}

func (s *Store) put(t Task) {
	if i := s.find(t.TaskID); i >= 0 {
		s.tasks[i] = t
	}
}

// reset replaces the store with a compaction snapshot; ids continue after the highest.
func (s *Store) reset(snapshot []Task) {
	s.tasks = append(s.tasks[:0:0], snapshot...)
	sort.Slice(s.tasks, func(i, j int) bool { return s.tasks[i].TaskID < s.tasks[j].TaskID })
	for _, t := range s.tasks {
		if t.TaskID >= s.next {
			s.next = t.TaskID + 1
		}
	}
}

// Summary counts tasks by status and lists the open ones by id.
func (s *Store) Summary() Summary {
	sum := Summary{Open: []OpenTask{}}
	for _, t := range s.tasks {
		sum.Total++
		switch t.Status {
		case Pending:
			sum.Pending++
		case InProgress:
			sum.InProgress++
		case Completed:
			sum.Completed++
		case Deleted:
			sum.Deleted++
		}
	}
	open := sum.Pending + sum.InProgress
	room := min(open, MaxOpenListed)
	inprogress := min(sum.InProgress, room) // in-progress tasks first, then the lowest pending ids
	pending := room - inprogress
	for _, t := range s.tasks {
		switch {
		case t.Status == InProgress && inprogress > 0:
			inprogress--
		case t.Status == Pending && pending > 0:
			pending--
		default:
			continue
		}
		sum.Open = append(sum.Open, OpenTask{TaskID: t.TaskID, Status: t.Status, Subject: t.Subject})
	}
	sum.OpenMore = open - len(sum.Open)
	return sum
}

// CheckSubject trims a subject and enforces one line of 1–200 characters.
func CheckSubject(subject string) (string, error) {
	s := strings.TrimSpace(subject)
	switch {
	case s == "":
		return "", errs.InvalidField("subject", "subject is empty; give a one-line subject of 1-%d characters", MaxSubjectRunes)
	case !utf8.ValidString(s):
		return "", errs.InvalidField("subject", "subject is not valid UTF-8")
	case strings.ContainsAny(s, "\n\r"):
		return "", errs.InvalidField("subject", "subject must be one line; put details in the description")
	case utf8.RuneCountInString(s) > MaxSubjectRunes:
		return "", errs.InvalidField("subject", "subject is %d characters; at most %d", utf8.RuneCountInString(s), MaxSubjectRunes)
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return "", errs.InvalidField("subject", "subject contains control character %U", r)
		}
	}
	return s, nil
}

// CheckDescription enforces the 64 KiB limit and valid UTF-8.
func CheckDescription(d string) error {
	if len(d) > maxDescription {
		return errs.InvalidField("description", "description is %d bytes; at most %d KiB", len(d), MaxDescriptionKB)
	}
	if !utf8.ValidString(d) {
		return errs.InvalidField("description", "description is not valid UTF-8")
	}
	return nil
}

// CheckStatus accepts exactly the four statuses.
func CheckStatus(st string) error {
	for _, v := range Statuses {
		if st == v {
			return nil
		}
	}
	return errs.InvalidField("status", "unknown status %q; valid: %s", st, strings.Join(Statuses, ", "))
}

// ParseStatuses splits a comma-separated --status filter and validates each part.
func ParseStatuses(list string) (map[string]bool, error) {
	want := map[string]bool{}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if err := CheckStatus(p); err != nil {
			return nil, err
		}
		want[p] = true
	}
	return want, nil
}

// Count is n tasks in words: "1 task", "3 tasks".
func Count(n int) string {
	if n == 1 {
		return "1 task"
	}
	return fmt.Sprintf("%d tasks", n)
}

// Render is the snapshot as a model reads it: the mark_read_required system message.
func Render(tasks []Task, sum Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task list (kept across compaction): %s — %d pending, %d inprogress, %d completed, %d deleted.\n",
		Count(sum.Total), sum.Pending, sum.InProgress, sum.Completed, sum.Deleted)
	if len(tasks) == 0 {
		b.WriteString("No tasks yet. Use TaskCreate to plan the work.\n")
		return b.String()
	}
	b.WriteString("Open tasks come first. Update them with TaskUpdate as you work; do not recreate them.\n")
	for _, t := range OpenFirst(tasks) {
		fmt.Fprintf(&b, "- #%d [%s] %s\n", t.TaskID, t.Status, t.Subject)
		if d := strings.TrimSpace(t.Description); d != "" {
			for _, line := range strings.Split(d, "\n") {
				fmt.Fprintf(&b, "    %s\n", line)
			}
		}
	}
	return b.String()
}

// OpenFirst orders tasks with pending and in-progress ones first, then the rest, each by id.
func OpenFirst(tasks []Task) []Task {
	out := make([]Task, 0, len(tasks))
	for _, t := range tasks {
		if t.Status == Pending || t.Status == InProgress {
			out = append(out, t)
		}
	}
	for _, t := range tasks {
		if t.Status != Pending && t.Status != InProgress {
			out = append(out, t)
		}
	}
	return out
}
