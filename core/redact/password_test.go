package redact

import (
	"strings"
	"testing"
)

func TestPasswordShape(t *testing.T) {
	r := New()
	hidden := []struct{ text, secret string }{
		{"the staging DB password is wR4Kqw9#3NeZGg0", "wR4Kqw9#3NeZGg0"},
		{"รหัสผ่าน wifi ออฟฟิศ: M0n$00nm3@d0w546", "M0n$00nm3@d0w546"},
		{"密码发你了 MonsoonJuniper8952+", "MonsoonJuniper8952+"},
		{"echo \"root:ERiSnMwyGW!YjPT\" | sudo chpasswd", "ERiSnMwyGW!YjPT"},
		{"ipmitool -I lanplus -H 10.0.0.2 -U ADMIN -P x^xQrQRY!BrTvs.C!Vp chassis power status", "x^xQrQRY!BrTvs.C!Vp"},
		{"java -jar jenkins-cli.jar -auth admin:biscuit.pelican.4604! build deploy", "biscuit.pelican.4604"},
		{"export SSHPASS=v*UL?nO-*n..MhE-p_; sshpass -e rsync", "v*UL?nO-*n..MhE-p"},
		{"| staging | admin | TundraHazel4609# |", "TundraHazel4609#"},
		{"creds: `deploy` / `ThistleWalrus22!`", "ThistleWalrus22"},
		{"shared the vpn creds with Sam (user jdoe, Tundra?5400?Hrc)", "Tundra?5400?Hrc"},
		{"use HtPUFxCvwR&pgND for now", "HtPUFxCvwR&pgND"},
	}
	for _, c := range hidden {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	kept := []string{
		"data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))",
		"ok, err = fl.TryLockContext(wctx, 10*time.Millisecond)",
		"if x&0x8080808080808080 != 0 {",
		"g := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))",
		"if k.Type == kb.KeyChar && k.Modifiers&^int64(ModifierShift) != 0 {",
		"case m&fs.ModeNamedPipe != 0:",
		"fmt.Fprintf(w, \"%s\\n\", env.Bold(\"[system: \"+res.System.Lane+\"]\"))",
		"// See: https://chromedevtools.github.io/devtools-protocol/tot/Accessibility#method-getPartialAXTree",
		"https://www.youtube.com/watch?v=avilmOcHKHE&t=1057s",
		"VCS revision as build metadata (`0.1.0+1a2b3c4d5e6f`) when the build has one.",
		"most of Hebrew and Arabic, U+0800-U+0FFF, CJK",
		"email = \"donald@ScroogeCorp.com\"",
		"install react@^18.2.0 and left-pad@1.3.0",
		"Convert the markdown file *go-md2man.1.md* into a manpage:",
		"if args.NextNeeded != nil && !*args.NextNeeded {",
		"buf = buf[i+1:in.pos.Byte]",
		"\\u2190foragents\\u00b7?forshortcuts",
		"Johnson&Johnson and AT&T filed on 2024-01-02!",
		"is COVID-19! really over?",
		"p.extensions&NoEmptyLineBeforeBlock",
		"🎉 shipped it ✅✅ — €5 each",
		"see https://pkg.go.dev/github.com/modelcontextprotocol/go-sdk/mcp#ClientOptions.CreateMessageHandler",
		"[link](https://github.com/golang/go/issues?q=is%3Aissue+is%3Aopen)",
	}
	for _, s := range kept {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestAnchorNeedsANamedFragment: a name, # and a fragment mixing cases at random is a password;
// a heading's or a method's anchor is not.
func TestAnchorNeedsANamedFragment(t *testing.T) {
	r := New()
	for _, s := range []string{"try qvbmdR#Tk7YpX3 with the capital", "Slack P#hu3rKd8Wq2vB"} {
		if got := r.Text(s); !strings.Contains(got, Placeholder) {
			t.Errorf("Text(%q) = %q, want the password hidden", s, got)
		}
	}
	for _, s := range []string{"see Accessibility#method-getTree", "README#Getting-Started"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestNamedDigitGroups: a number in four groups of four named a secret or an account is hidden;
// the same groups in prose that names none are kept.
func TestNamedDigitGroups(t *testing.T) {
	r := New()
	for _, s := range []string{"export VPN_ACCOUNT=5812 0937 4416 2208", "Authorization: Bearer 5812 0937 4416 2208", "vpn account login 5812 0937 4416 2208"} {
		if got := r.Text(s); strings.Contains(got, "0937") {
			t.Errorf("Text(%q) = %q, want the number hidden", s, got)
		}
	}
	for _, s := range []string{"the years 1989 1990 1991 1992 were good"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestLetterQuads: four dash-joined groups of four small letters that read as no words are a
// generated app password; words so joined and filler are not.
func TestLetterQuads(t *testing.T) {
	r := New()
	if got := r.Text("my mail key is qbzt-wkvh-xdjr-pmgf now"); strings.Contains(got, "qbzt-wkv") {
		t.Errorf("Text = %q, want the code hidden", got)
	}
	for _, s := range []string{"key: xxxx-xxxx-xxxx-xxxx", "see test-case-file-name for it"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}
