package spaces

import (
	"database/sql/driver"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// The short-term index: the trigram index cannot match a term of one or two characters, and
// testing every comment of a space costs time in proportion to the space.
// comments_short is a contentless FTS5 table with one row per comment that has an index text
// (rowid = comments.rid). Its document is every distinct character and every distinct pair of
// neighbouring characters of the index text, pairs with white space left out (a query term never
// holds white space), each spelt as one token of the table's tokenizer (gramToken). A search asks
// the index for the rows holding the term's token and tests the term on each as the walk does
// (instr), so the index only chooses which rows are tested, never what matches.
//
// The same document holds every distinct run of four neighbouring characters (white space left
// out), each hashed into one of 2^quadBits buckets and spelt as a token of its own (appendQuad).
// A term of four characters or more is in a comment only if each of its runs of four is, so the
// AND of its runs' tokens holds every comment that has it: where the trigram index (no positions
// kept) gives every comment holding the term's trigrams anywhere (gen-longspace's "yuyok": 3,198
// comments hold "yuy", "uyo" and "yok", 104 the term), the runs of four give about the comments
// that hold the term, and the tests read about as many rows as they answer.
//
// And it holds every distinct run of three characters (white space left out), spelt whole as a
// character or a pair is. Every token a query's terms have is then in this one index, so a query
// is one AND that FTS5 intersects, seeking through each token's rowids, instead of two indexes'
// candidates intersected by reading them: gen-space's "rea ック" ("rea" in 7,928 comments, "ック"
// in as many others, together in none) read both lists whole.

// shortGramsFunc is the SQL name of shortGrams, registered for every connection.
const shortGramsFunc = "cairn_short_grams"

// shortGramsOfText is the SQL of a comment's short-term document: its index text passed whole,
// as a blob. A text argument reaches a Go function cut at its first NUL byte (the driver reads
// it as a C string), so a term after one was in the trigram index (and in a team store's
// index) but not in this one.
const shortGramsOfText = shortGramsFunc + "(CAST(itext AS BLOB))"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(shortGramsFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			return shortGrams(v), nil
		case []byte:
			return shortGrams(string(v)), nil
		default:
			return nil, nil
		}
	})
}

// gramSet is a reusable set of the grams already written for one text: characters and pairs of
// ASCII characters in bitmaps (most grams of most texts, and no hashing), the others (and the
// buckets of runs of four, quadKey) in an open-addressed table whose slots count as empty
// unless stamped with the current text's gen, so starting the next text clears nothing there.
type gramSet struct {
	ascii [128 * 129 / 64]uint64 // bit a*129+128 for the character a, a*129+b for the pair ab
	keys  keyTable               // the other characters and pairs, and the runs of four
	tris  keyTable               // the runs of three, each key its three code points
	gen   uint32
}

// keyTable is one open-addressed table of gramSet.
type keyTable struct {
	slots []gramSlot // a power of two of them, at most half in use
	used  int        // slots of the set's gen
}

// gramSlot is one slot of gramSet's table: key is in the set when gen is the set's.
type gramSlot struct {
	key uint64
	gen uint32
}

// next readies g for another text.
func (g *gramSet) next() {
	g.ascii = [len(g.ascii)]uint64{}
	g.keys.used, g.tris.used = 0, 0
	if g.gen++; g.gen == 0 { // after 2^32 texts: stamps of old texts would look current
		clear(g.keys.slots)
		clear(g.tris.slots)
		g.gen = 1
	}
}

// add reports whether the gram of (a, b) was new, adding it; b < 0 is the single character a.
func (g *gramSet) add(a, b rune) bool {
	if a < 128 && b < 128 {
		bit := int(a)*129 + 128
		if b >= 0 {
			bit = int(a)*129 + int(b)
		}
		w, m := bit/64, uint64(1)<<(bit%64)
		if g.ascii[w]&m != 0 {
			return false
		}
		g.ascii[w] |= m
		return true
	}
	key := uint64(a)<<32 | 0xffffffff
	if b >= 0 {
		key = uint64(a)<<32 | uint64(b)
	}
	return g.addKey(key)
}

// quadKey is the key of a bucket of runs of four in gramSet's table, which no character or
// pair has (their keys are below 2^53).
func quadKey(h uint32) uint64 { return 1<<63 | uint64(h) }

// addKey reports whether key (a character, a pair or a run of four's bucket) was new, adding it.
func (g *gramSet) addKey(key uint64) bool { return g.keys.add(key, g.gen) }

// addTri reports whether the run of three a, b, c was new, adding it: its key is the three code
// points (21 bits each), which leaves no bit to tell it from the other keys, hence a table apart.
func (g *gramSet) addTri(a, b, c rune) bool {
	return g.tris.add(uint64(a)<<42|uint64(b)<<21|uint64(c), g.gen)
}

// add reports whether key was new among the keys stamped gen, adding it.
func (t *keyTable) add(key uint64, gen uint32) bool {
	if 2*(t.used+1) > len(t.slots) {
		t.grow(gen)
	}
	mask := uint64(len(t.slots) - 1)
	for i := (key * 0x9e3779b97f4a7c15 >> 32) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != gen {
			s.key, s.gen = key, gen
			t.used++
			return true
		}
		if s.key == key {
			return false
		}
	}
}

// grow doubles the table (256 slots at first), keeping the keys of gen.
func (t *keyTable) grow(gen uint32) {
	old := t.slots
	t.slots = make([]gramSlot, max(256, 2*len(old)))
	t.used = 0
	for _, s := range old {
		if s.gen == gen {
			t.add(s.key, gen)
		}
	}
}

var gramSets = sync.Pool{New: func() any { return &gramSet{gen: 1} }}

// shortGrams is the short-term index document of an index text: its distinct characters, pairs
// and runs of three characters (without white space), as space-separated tokens (appendToken),
// and the distinct buckets of its runs of four characters (appendQuad).
func shortGrams(itext string) string {
	seen := gramSets.Get().(*gramSet)
	defer func() {
		seen.next()
		gramSets.Put(seen)
	}()
	var b strings.Builder
	b.Grow(len(itext) * 2)
	var buf [2 * utf8.UTFMax]byte
	var tri [3 * utf8.UTFMax]byte // the UTF-8 of the run of three ending at r
	prev, prevSize := rune(-1), 0
	var run [3]rune // the three characters before r, oldest first, in a run of nrun without white space
	nrun := 0
	write := func(gram []byte) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		appendToken(&b, gram)
	}
	for _, r := range itext {
		if unicode.IsSpace(r) {
			prev, prevSize, nrun = -1, 0, 0
			continue
		}
		if nrun >= 3 {
			if h := quadHash(run[0], run[1], run[2], r); seen.addKey(quadKey(h)) {
				b.WriteByte(' ')
				appendQuad(&b, h)
			}
		}
		size := utf8.EncodeRune(buf[prevSize:], r)
		if nrun >= 2 && seen.addTri(run[1], run[2], r) {
			n := utf8.EncodeRune(tri[:], run[1])
			n += utf8.EncodeRune(tri[n:], run[2])
			n += copy(tri[n:], buf[prevSize:prevSize+size])
			write(tri[:n])
		}
		run[0], run[1], run[2] = run[1], run[2], r
		nrun++
		if seen.add(r, -1) {
			write(buf[prevSize : prevSize+size])
		}
		if prev >= 0 && seen.add(prev, r) {
			write(buf[:prevSize+size])
		}
		copy(buf[:], buf[prevSize:prevSize+size])
		prev, prevSize = r, size
	}
	return b.String()
}

// shortToken is the index token of a term of one or two characters, and false when the index
// cannot answer for it (white space in it, or another length): then the walk does.
func shortToken(term string) (string, bool) {
	if n := utf8.RuneCountInString(term); n < 1 || n > 2 {
		return "", false
	}
	return gramToken(term)
}

// triToken is the index token of a term of three characters, and false when the index cannot
// answer for it (white space in it, or another length).
func triToken(term string) (string, bool) {
	if utf8.RuneCountInString(term) != 3 {
		return "", false
	}
	return gramToken(term)
}

// gramToken is the index token of a gram the index holds whole (a character, a pair, a run of
// three), and false with white space in it.
func gramToken(term string) (string, bool) {
	if strings.IndexFunc(term, unicode.IsSpace) >= 0 || !utf8.ValidString(term) {
		return "", false
	}
	var b strings.Builder
	b.Grow(3 * len(term))
	appendToken(&b, []byte(term))
	return b.String(), true
}

// quadBits is the width of a run of four's bucket (quadHash): about four million buckets, so
// that a rare run shares its bucket's comments with few others.
const quadBits = 22

// quadHash is the bucket of a run of four characters (FNV-1a over the code points, folded to
// quadBits). The index stores it: a change to it is a migration that rebuilds the index.
func quadHash(a, b, c, d rune) uint32 {
	h := uint32(2166136261)
	for _, r := range [4]rune{a, b, c, d} {
		h = (h ^ uint32(r)) * 16777619
	}
	return (h ^ h>>quadBits) & (1<<quadBits - 1)
}

// appendQuad writes a bucket's token: "_q" and five base-32 digits, which no character or pair
// has ('_' there is always followed by two hex digits).
func appendQuad(b *strings.Builder, h uint32) {
	const digits = "0123456789abcdefghijklmnopqrstuv"
	b.WriteString("_q")
	for shift := 20; shift >= 0; shift -= 5 {
		b.WriteByte(digits[h>>shift&31])
	}
}

// quadTokens are the distinct tokens of a term's runs of four characters, and false when it has
// none (fewer than four characters, or white space in every run): then only the trigram index
// can narrow it.
func quadTokens(term string) ([]string, bool) {
	r := []rune(term)
	if len(r) < 4 || !utf8.ValidString(term) {
		return nil, false
	}
	var out []string
	seen := map[uint32]bool{}
	for i := 0; i+4 <= len(r); i++ {
		if strings.IndexFunc(string(r[i:i+4]), unicode.IsSpace) >= 0 {
			continue
		}
		if h := quadHash(r[i], r[i+1], r[i+2], r[i+3]); !seen[h] {
			seen[h] = true
			var b strings.Builder
			appendQuad(&b, h)
			out = append(out, b.String())
		}
	}
	return out, len(out) > 0
}

// appendToken writes the index token of gram, the UTF-8 of one to three characters, as the table's
// tokenizer (ascii, with '_' a token character) keeps it whole and unchanged: the bytes of a
// character outside ASCII and of a-z and 0-9 as they are, every other ASCII byte as '_' and its
// two hex digits. Distinct grams have distinct tokens ('_' is always followed by two digits, and
// UTF-8 sequences are self-delimiting), and a character of CJK text costs 3 bytes instead of the
// 6 hex digits of its bytes, so the index tokenizes and hashes half as much.
func appendToken(b *strings.Builder, gram []byte) {
	const digits = "0123456789abcdef"
	kept := 0 // gram[kept:i] is written as it is
	for i, c := range gram {
		if c >= utf8.RuneSelf || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			continue
		}
		b.Write(gram[kept:i])
		b.WriteByte('_')
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&15])
		kept = i + 1
	}
	b.Write(gram[kept:])
}
