package spaces

import (
	"reflect"
	"strings"
	"testing"
)

func TestQueryPlan(t *testing.T) {
	sc := scope{space: "s", task: "1"}
	scopeWhere := []string{`c.space = ?1`, `t.space = ?1`, `c.task <> ?2`, `c.itext IS NOT NULL`}
	for _, tc := range []struct {
		name        string
		in          SearchInput
		allLike     bool
		long, short []string
		where       []string
		args        []any
	}{
		{
			name:  "long and short terms, folded and without duplicates",
			in:    SearchInput{Query: "Migration ab MIGRATION", Limit: 10},
			long:  []string{"migration"},
			short: []string{"ab"},
			where: []string{`instr(lower(c.itext), ?3) > 0`, `c.itext LIKE ?4 ESCAPE '\'`},
			args:  []any{"s", "1", "migration", "%ab%", 11},
		},
		{
			name:    "the all-LIKE reference sends every term through LIKE, wildcards escaped",
			in:      SearchInput{Query: "50%_off x", Limit: 3},
			allLike: true,
			short:   []string{"50%_off", "x"},
			where:   []string{`c.itext LIKE ?3 ESCAPE '\'`, `c.itext LIKE ?4 ESCAPE '\'`},
			args:    []any{"s", "1", `%50\%\_off%`, "%x%", 4},
		},
		{
			name:  "filters follow the terms",
			in:    SearchInput{Query: "認証", Limit: 30, Kind: "result", Author: "bob", TaskID: "task:16"},
			short: []string{"認証"},
			where: []string{`c.itext LIKE ?3 ESCAPE '\'`, `c.kind = ?4`, `c.author = ?5`, `c.task = ?6`},
			args:  []any{"s", "1", "%認証%", "result", "bob", "16", 31},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQueryPlan(sc, tc.in, tc.allLike)
			if !reflect.DeepEqual(p.long, tc.long) || !reflect.DeepEqual(p.short, tc.short) {
				t.Errorf("long %q short %q, want %q %q", p.long, p.short, tc.long, tc.short)
			}
			if want := append(append([]string(nil), scopeWhere...), tc.where...); !reflect.DeepEqual(p.where, want) {
				t.Errorf("where\n got %q\nwant %q", p.where, want)
			}
			if !reflect.DeepEqual(p.args, tc.args) {
				t.Errorf("args %#v, want %#v", p.args, tc.args)
			}
			if want := "?" + string(rune('0'+len(tc.args))); p.limit != want {
				t.Errorf("limit %s, want %s", p.limit, want)
			}
		})
	}
}

func TestQueryPlanFromAndWindow(t *testing.T) {
	p := newQueryPlan(scope{space: "s", task: "1"}, SearchInput{Query: "migration", Limit: 10}, false)
	from := p.drivenFrom("comments_fts", trigramMatch(p.long))
	if !strings.Contains(from, "FROM comments_fts WHERE comments_fts MATCH ?5") || p.args[4] != trigramMatch([]string{"migration"}) {
		t.Errorf("driven from %q with args %v", from, p.args)
	}
	w := p.windowFilter(42, "n7")
	if w != `(c.at_ns, c.idkey) >= (42, ?6)` || p.args[5] != "n7" {
		t.Errorf("window %q with args %v", w, p.args)
	}
	q := p.sql(walkFrom, w)
	for _, want := range []string{"FROM " + walkFrom, "instr(lower(c.itext), ?3) > 0 AND " + w, "ORDER BY c.at_ns DESC, c.idkey DESC LIMIT ?4"} {
		if !strings.Contains(q, want) {
			t.Errorf("sql lacks %q:\n%s", want, q)
		}
	}
	if strings.Contains(p.sql(walkFrom), w) {
		t.Errorf("a window filter stayed in the plan after the statement that used it")
	}
}

func TestShortMatch(t *testing.T) {
	for _, tc := range []struct {
		short []string
		match string
		ok    bool
	}{
		{nil, "", false},
		{[]string{"a"}, `"a"`, true},
		{[]string{"ab", "認"}, `"ab" AND "認"`, true},
		{[]string{`"`, "A"}, `"_22" AND "_41"`, true},
		{[]string{"ab", "abc"}, "", false}, // a term of three characters has no short token
	} {
		match, ok := shortMatch(tc.short)
		if match != tc.match || ok != tc.ok {
			t.Errorf("shortMatch(%q) = %q, %v; want %q, %v", tc.short, match, ok, tc.match, tc.ok)
		}
	}
}
