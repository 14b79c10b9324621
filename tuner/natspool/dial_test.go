package natspool

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// freeAddr returns a loopback address nothing listens on (for now).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// lines collects logf's lines on a channel.
func lines() (chan string, func(string, ...any)) {
	c := make(chan string, 100)
	return c, func(format string, args ...any) { c <- fmt.Sprintf(format, args...) }
}

// await reads lines from c up to the first containing want, and returns
// them, that one last.
func await(t *testing.T, c chan string, want string) []string {
	t.Helper()
	var read []string
	for line := range c {
		t.Log(line)
		read = append(read, line)
		if strings.Contains(line, want) {
			return read
		}
	}
	t.Fatalf("no line %q", want)
	return nil
}

// TestDialWaitsForServer: a worker dialling before its server exists says
// once that it waits, connects when the server starts, then plays.
func TestDialWaitsForServer(t *testing.T) {
	addr := freeAddr(t)
	url := "nats://" + addr
	logs, logf := lines()
	type dialed struct {
		nc  *nats.Conn
		err error
	}
	got := make(chan dialed, 1)
	go func() {
		nc, err := Dial(context.Background(), url, Credentials{}, "w", 0, logf)
		got <- dialed{nc, err}
	}()
	read := await(t, logs, "waiting for the NATS server at "+url)
	if line := read[len(read)-1]; !strings.Contains(line, "no servers available") {
		t.Errorf("the waiting line says no reason: %q", line)
	}
	// Dial tries again before the server comes, and says nothing more.
	time.Sleep(dialRetry + dialRetry/2)
	s, err := StartServer(addr, Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	d := <-got
	if d.err != nil {
		t.Fatal(d.err)
	}
	t.Cleanup(d.nc.Close)
	// The lines up to "connected" and after it: a second waiting line
	// would come before it.
	later := await(t, logs, "connected to the NATS server at "+url)
	close(logs)
	for line := range logs {
		later = append(later, line)
	}
	for _, line := range later {
		if strings.Contains(line, "waiting") {
			t.Errorf("waiting said more than once: %q", line)
		}
	}

	startWorker(t, newWorker(t, d.nc, "w", 1))
	b := testBatch(rand.New(rand.NewPCG(41, 42)), 0, 2, 2, false)
	res, err := playDist(t, newPool(t, connect(t, s, "c"), Options{}), b)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, res, playLocal(t, b))
}

// TestDialGivesUp: with a bound on the wait, Dial ends with ErrNoServer;
// refused credentials end it at once, however long it may wait.
func TestDialGivesUp(t *testing.T) {
	_, logf := lines()
	url := "nats://" + freeAddr(t)
	_, err := Dial(context.Background(), url, Credentials{}, "w", 200*time.Millisecond, logf)
	if !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), url) {
		t.Errorf("got %v, want %v naming %s", err, ErrNoServer, url)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Dial(ctx, url, Credentials{}, "w", 0, logf); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want %v", err, context.Canceled)
	}

	s := startServer(t, Credentials{User: "u", Password: "right"})
	if _, err := Dial(context.Background(), s.URL(), Credentials{User: "u", Password: "wrong"}, "w", 0, logf); !errors.Is(err, ErrAuth) {
		t.Errorf("wrong password: got %v, want %v", err, ErrAuth)
	}
}
