package natspool

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

var (
	// ErrAuth is wrapped by errors about credentials a server refused.
	ErrAuth = errors.New("tuner/natspool: the NATS server refused the credentials")
	// ErrInsecure is wrapped by the error of StartServer asked to listen
	// beyond this machine without credentials.
	ErrInsecure = errors.New("tuner/natspool: refusing to serve other machines without credentials")
	// ErrAddress is wrapped by errors about a listen address that is not
	// host:port.
	ErrAddress = errors.New("tuner/natspool: bad listen address")
	// ErrCredentials is wrapped by errors about a credentials file.
	ErrCredentials = errors.New("tuner/natspool: bad credentials file")
)

// Credentials authenticate a client to a server, or a server's one user.
// The zero value means none.
type Credentials struct {
	User, Password string
	Token          string
	// File is a NATS user credentials file (a JWT and an NKey seed, as
	// nsc writes them): for servers run with NATS accounts. An embedded
	// server cannot use it.
	File string
}

// ReadCredentials reads a credentials file: a NATS user credentials file,
// or a file whose first line that is neither empty nor a # comment is
// "user:password" (split at the first colon) or else a token.
func ReadCredentials(path string) (Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("%w: %w", ErrCredentials, err)
	}
	if strings.Contains(string(data), "-----BEGIN NATS USER JWT-----") {
		return Credentials{File: path}, nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if user, pass, ok := strings.Cut(line, ":"); ok {
			if user == "" || pass == "" {
				return Credentials{}, fmt.Errorf("%w: %s:%d: want user:password with neither empty", ErrCredentials, path, i+1)
			}
			return Credentials{User: user, Password: pass}, nil
		}
		return Credentials{Token: line}, nil
	}
	return Credentials{}, fmt.Errorf("%w: %s: empty; want user:password or a token on one line", ErrCredentials, path)
}

// Redact returns a server URL with any password or token in it replaced,
// for messages.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	if _, ok := p.User.Password(); ok {
		p.User = url.UserPassword(p.User.Username(), "xxxxx")
	} else {
		p.User = url.User("xxxxx")
	}
	return p.String()
}

// Connect dials the server at serverURL (credentials may be in the URL, or
// in c) under the connection name name. Once connected, the connection
// reconnects for ever when the server goes away, telling logf (if not nil)
// when it loses and regains the server; the first dial does not retry, so
// that a wrong address or bad credentials fail at once. A refused login
// wraps ErrAuth.
func Connect(serverURL string, c Credentials, name string, logf func(format string, args ...any)) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.Timeout(5 * time.Second),
	}
	if logf != nil {
		opts = append(opts,
			nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
				if err != nil {
					logf("lost the NATS server (%v); reconnecting", err)
				}
			}),
			nats.ReconnectHandler(func(nc *nats.Conn) {
				logf("reconnected to %s", nc.ConnectedUrlRedacted())
			}))
	}
	switch {
	case c.File != "":
		opts = append(opts, nats.UserCredentials(c.File))
	case c.Token != "":
		opts = append(opts, nats.Token(c.Token))
	case c.User != "":
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	nc, err := nats.Connect(serverURL, opts...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) {
			return nil, fmt.Errorf("%w at %s (check --nats-creds or the URL's user:password@): %w", ErrAuth, Redact(serverURL), err)
		}
		return nil, fmt.Errorf("tuner/natspool: cannot connect to the NATS server at %s: %w", Redact(serverURL), err)
	}
	return nc, nil
}

// ErrNoServer is wrapped by the error of Dial when no server answered
// within its wait.
var ErrNoServer = errors.New("tuner/natspool: no NATS server")

// dialRetry is how often Dial tries again while it waits for a server.
const dialRetry = time.Second

// Dial connects as Connect does, but waits for a server that is not there
// yet (not started, restarting, its machine still booting): workers are
// started by service managers in any order. It tells logf (if not nil) once
// that it waits for the server at serverURL and why, tries again every
// second, and tells logf "connected" once it is. wait bounds the wait (0
// means no bound); at its end the error wraps ErrNoServer. Refused
// credentials (ErrAuth) and other errors that trying again cannot mend
// fail at once, and so does ctx ending, with ctx's error.
func Dial(ctx context.Context, serverURL string, c Credentials, name string, wait time.Duration, logf func(format string, args ...any)) (*nats.Conn, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	waiting := false
	for {
		nc, err := Connect(serverURL, c, name, logf)
		if err == nil {
			if waiting {
				logf("connected to the NATS server at %s", Redact(serverURL))
			}
			return nc, nil
		}
		if !unreachable(err) {
			return nil, err
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return nil, fmt.Errorf("%w at %s after waiting %v (%v)", ErrNoServer, Redact(serverURL), wait, errors.Unwrap(err))
		}
		if !waiting {
			waiting = true
			logf("waiting for the NATS server at %s (%v); trying again every %v", Redact(serverURL), errors.Unwrap(err), dialRetry)
		}
		pause := dialRetry
		if !deadline.IsZero() {
			pause = min(pause, time.Until(deadline))
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("tuner/natspool: waiting for the NATS server at %s: %w", Redact(serverURL), ctx.Err())
		case <-t.C:
		}
	}
}

// unreachable reports whether err, from Connect, says that no server
// answered, which a later try may mend, rather than that one refused.
func unreachable(err error) bool {
	var ne net.Error
	return errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrTimeout) || errors.As(err, &ne)
}

// apiTimeout bounds a JetStream API call made without a deadline of its
// own (creating the streams and the consumer, purging a run). The client's
// default, 5 s, is shorter than a server's file store can take to create a
// stream on a busy disk; a run start that waits longer is better than one
// that fails.
const apiTimeout = 30 * time.Second

// newJetStream is jetstream.New with apiTimeout.
func newJetStream(nc *nats.Conn) (jetstream.JetStream, error) {
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(apiTimeout))
	if err != nil {
		return nil, fmt.Errorf("tuner/natspool: %w", err)
	}
	return js, nil
}
