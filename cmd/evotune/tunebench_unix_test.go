//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/proctest"
)

// keepPeer is a peer optimizer in POSIX shell for standard-3, whose first
// argument says how it behaves: "good" asks for games at the start's
// weights and recommends them; "crash" exits 3 after the first line;
// "hang" is good but at run seed 2, where, unless the file its second
// argument names exists, it writes its pid there and waits for a line that
// never comes. Each start appends its mode to the file "started" beside
// the script.
const keepPeer = `mode=$1
echo "$mode" >> "$(dirname "$0")/started"
read hello
[ "$mode" = crash ] && exit 3
case $hello in *'"seed":2,'*)
  if [ "$mode" = hang ] && [ ! -e "$2" ]; then echo $$ > "$2"; read x; exit 0; fi;;
esac
p='{"monotonicity":47,"smoothness":11,"empty":270,"corner":100,"merge":70}'
while :; do
  echo '{"params":'"$p"',"games":4,"first":0}'
  read a || exit 0
  case $a in *'"stop"'*) echo '{"recommend":'"$p"',"final":true}'; read a; exit 0;; esac
  case $a in *'"recommend":true'*) echo '{"recommend":'"$p"'}'; read a;; esac
done
`

// TestTunebenchKilledResumes kills evotune tunebench, a real process, with
// a real signal, after two rows have ended (the tuner's, and a peer's that
// crashed) and while the third is at its second run seed; then runs the
// same command again. The finished rows come back byte for byte, files and
// output alike, and so does the third row's first run seed; nothing
// finished runs again; the crashed row is reported, once, and the command
// exits 1 for it.
func TestTunebenchKilledResumes(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh for the peer script")
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			script, marker, out := filepath.Join(dir, "peer.sh"), filepath.Join(dir, "hanging"), filepath.Join(dir, "out")
			if err := os.WriteFile(script, []byte(keepPeer), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"tunebench", "--short", "--problems", "standard-3", "--seeds", "1,2", "--workers", "1", "--json", "--out", out,
				"--peer", sh + " " + script + " crash", "--peer", sh + " " + script + " hang " + marker}
			var stdout, stderr bytes.Buffer
			cmd := evotuneCommand(nil, args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			deadline := time.After(2 * time.Minute)
		wait:
			for {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("evotune ended (%v) before the third row reached its second run seed; stderr:\n%s", err, stderr.String())
				case <-deadline:
					cmd.Process.Kill()
					<-done
					t.Fatalf("the third row never reached its second run seed; stderr:\n%s", stderr.String())
				case <-time.After(20 * time.Millisecond):
					continue wait
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("evotune did not end after %v", sig)
			}
			if pids, err := proctest.ReadPids(marker); err == nil {
				proctest.WaitGone(t, pids...) // the hanging peer went with it
			}

			// What was kept: the two rows that ended and the third row's
			// first run seed, nothing of its second.
			rowDirs := map[string]string{}
			entries, err := os.ReadDir(filepath.Join(out, "development", "standard-3"))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				// Each directory is a row's: its files name the row.
				d := filepath.Join(out, "development", "standard-3", e.Name())
				files, _ := filepath.Glob(filepath.Join(d, "*.json"))
				if len(files) == 0 {
					continue
				}
				var row struct{ Peer string }
				data, _ := os.ReadFile(files[0])
				json.Unmarshal(data, &row)
				switch {
				case row.Peer == "":
					rowDirs["evotune"] = d
				case strings.HasSuffix(row.Peer, " crash"):
					rowDirs["crash"] = d
				case strings.Contains(row.Peer, " hang "):
					rowDirs["hang"] = d
				}
			}
			if len(rowDirs) != 3 {
				t.Fatalf("row directories %v; want evotune's, the crashing peer's and the hanging peer's", rowDirs)
			}
			kept := map[string][]byte{}
			for _, f := range []string{"evotune/row.json", "evotune/seed-1.json", "evotune/seed-2.json", "crash/row.json", "hang/seed-1.json"} {
				row, file, _ := strings.Cut(f, "/")
				data, err := os.ReadFile(filepath.Join(rowDirs[row], file))
				if err != nil {
					t.Fatalf("after %v: %v", sig, err)
				}
				kept[f] = data
			}
			for _, f := range []string{"hang/row.json", "hang/seed-2.json", "crash/seed-1.json"} {
				row, file, _ := strings.Cut(f, "/")
				if _, err := os.Stat(filepath.Join(rowDirs[row], file)); err == nil {
					t.Errorf("after %v: %s was written", sig, f)
				}
			}
			var crashed struct{ Error string }
			if err := json.Unmarshal(kept["crash/row.json"], &crashed); err != nil || !strings.Contains(crashed.Error, "exit status 3") {
				t.Errorf("the crashed row's file says %q (%v)", crashed.Error, err)
			}
			os.Remove(filepath.Join(dir, "started"))

			// The same command again.
			code, resumed, errs := runCLI(t, args...)
			if code != 1 || !strings.Contains(errs, "exit status 3") || strings.Count(strings.TrimSpace(errs[strings.LastIndex(errs, "evotune tunebench:"):]), "\n") != 0 {
				t.Fatalf("resumed: exit %d, stderr:\n%s\nwant 1 and one last line on the crashed row", code, errs)
			}
			for _, f := range []string{"evotune/row.json", "evotune/seed-1.json", "evotune/seed-2.json", "crash/row.json", "hang/seed-1.json"} {
				row, file, _ := strings.Cut(f, "/")
				if data, _ := os.ReadFile(filepath.Join(rowDirs[row], file)); !bytes.Equal(data, kept[f]) {
					t.Errorf("%s changed on resume:\n%s\nwas\n%s", f, data, kept[f])
				}
			}
			started, _ := os.ReadFile(filepath.Join(dir, "started"))
			if got := strings.Fields(string(started)); strings.Join(got, " ") != "hang" {
				t.Errorf("peers started on resume: %q; want only the hanging row's second run seed", got)
			}
			if strings.Contains(errs, "evotune  seed 1  grid") || strings.Contains(errs, "evotune  seed 2  grid") {
				t.Errorf("the tuner's finished row ran again:\n%s", errs)
			}
			var top struct {
				Problems []json.RawMessage `json:"problems"`
			}
			if err := json.Unmarshal([]byte(resumed), &top); err != nil || len(top.Problems) != 3 {
				t.Fatalf("resumed output (%v): %s", err, resumed)
			}
			for i, f := range []string{"evotune/row.json", "crash/row.json"} {
				if want := bytes.TrimSuffix(kept[f], []byte("\n")); !bytes.Equal(top.Problems[i], want) {
					t.Errorf("row %d of the output:\n%s\nwant %s:\n%s", i+1, top.Problems[i], f, want)
				}
			}
			var third, seed1 struct {
				Runs []json.RawMessage `json:"runs"`
			}
			json.Unmarshal(top.Problems[2], &third)
			json.Unmarshal(kept["hang/seed-1.json"], &seed1)
			if len(third.Runs) != 2 || len(seed1.Runs) != 1 || !bytes.Equal(third.Runs[0], seed1.Runs[0]) {
				t.Errorf("the third row's first run seed:\n%s\nwant\n%s", third.Runs, seed1.Runs)
			}

			// The directory renders as the output does.
			code, table, errs := runCLI(t, "tunebench", "table", out)
			if code != 0 || !strings.Contains(table, "standard-3 (development)") || !strings.Contains(table, " crash failed: tunebench: standard-3, peer "+sh+", run seed 1: ") {
				t.Errorf("tunebench table DIR: exit %d, stderr %q:\n%s", code, errs, table)
			}
		})
	}
}
