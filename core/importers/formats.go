package importers

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
)

// Format is one tracker cairn imports a project from (`board import --from NAME`): the CLI's
// usage, its dispatch and the check against docs/formats.md all read this table.
type Format struct {
	// Name is the --from value.
	Name string
	// Doc says what the source is and how the project is named, for the command's help; a
	// line break continues it on the next line.
	Doc string
	// Project is what --project gives for it, as help says ("OWNER/REPO").
	Project string
	// Many formats take several sources at once (gh prints issues and pull requests apart).
	Many bool
	// Read converts the source into one project.
	Read func(src Source) (*board.ProjectBoard, error)
}

// Source is what a format reads: the paths given (- is standard input), how the face reads
// one of them, and the project name asked for ("" to name it from the source).
type Source struct {
	Paths []string `json:"paths"`
	// ReadFile reads a file or, for "-", standard input, bounded; it returns the data and the
	// name to cite in messages.
	ReadFile func(path string) ([]byte, string, error) `json:"-"`
	Name     string                                    `json:"project"`
}

// Table is every format, in the order help lists them.
var Table = []Format{
	{Name: "github", Many: true, Read: readGitHub, Project: "OWNER/REPO",
		Doc: "the JSON of 'gh issue list --json ...' and/or 'gh pr list --json ...' (files or -);\n" +
			"project gh-OWNER-REPO, from the items' url or --project OWNER/REPO"},
	{Name: "beads", Read: readBeads, Project: "the folder name to use",
		Doc: "a .beads/issues.jsonl file (or the folder holding .beads/); project beads-FOLDER"},
	{Name: "backlog-md", Read: readBacklogMD, Project: "the folder name to use",
		Doc: "a Backlog.md backlog/ folder (or the folder holding it); project backlog-FOLDER"},
}

// Formats are the format names, in the order help lists them.
func Formats() []string {
	names := make([]string, len(Table))
	for i, f := range Table {
		names[i] = f.Name
	}
	return names
}

// ProjectUsage is what --project gives for each format, formats alike in a group:
// "github: OWNER/REPO; beads, backlog-md: the folder name to use".
func ProjectUsage() string {
	var groups []string
	for i, f := range Table {
		if i > 0 && Table[i-1].Project == f.Project {
			last := groups[len(groups)-1]
			groups[len(groups)-1] = strings.Replace(last, ":", ", "+f.Name+":", 1)
			continue
		}
		groups = append(groups, f.Name+": "+f.Project)
	}
	return strings.Join(groups, "; ")
}

// Lookup finds a format by name; an unknown one is INVALID_INPUT naming the valid ones.
func Lookup(name string) (Format, error) {
	for _, f := range Table {
		if f.Name == name {
			return f, nil
		}
	}
	return Format{}, errs.Invalidf("%s %q is not one of %s", errs.Field("from", errs.Name), name, strings.Join(Formats(), ", "))
}

func readGitHub(src Source) (*board.ProjectBoard, error) {
	var files []File
	for _, p := range src.Paths {
		data, name, err := src.ReadFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: name, Data: data})
	}
	return GitHubFiles(files, src.Name)
}

func readBeads(src Source) (*board.ProjectBoard, error) {
	file, name := src.Paths[0], src.Name
	if file != "-" {
		var err error
		if file, err = beadsFile(file); err != nil {
			return nil, err
		}
		if name == "" {
			name = beadsName(file)
		}
	} else if name == "" {
		return nil, errs.Invalidf("beads from standard input has no folder to name the project; %s", errs.Field("project", errs.Pass))
	}
	data, file, err := src.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Beads(file, data, name)
}

func readBacklogMD(src Source) (*board.ProjectBoard, error) {
	if src.Paths[0] == "-" {
		return nil, errs.Invalidf("backlog-md reads a folder (backlog/ or the folder holding it), not standard input")
	}
	return BacklogMD(src.Paths[0], src.Name)
}

// beadsFile finds issues.jsonl: the file given, or inside the .beads folder given or held by the
// folder given.
func beadsFile(src string) (string, error) {
	st, err := os.Stat(src)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, err, "board import")
	}
	if !st.IsDir() {
		return src, nil
	}
	for _, p := range []string{filepath.Join(src, ".beads", "issues.jsonl"), filepath.Join(src, "issues.jsonl")} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errs.Invalidf("board import: %s holds no .beads/issues.jsonl", src)
}

// beadsName is the name of the folder that holds .beads/ (or the file's folder elsewhere).
func beadsName(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	dir := filepath.Dir(abs)
	if filepath.Base(dir) == ".beads" {
		dir = filepath.Dir(dir)
	}
	return filepath.Base(dir)
}
