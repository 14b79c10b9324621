package natspool

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DefaultListen is where an embedded server listens unless told otherwise.
const DefaultListen = "127.0.0.1:4222"

// A Server is a NATS server with JetStream running inside this process.
type Server struct {
	ns    *server.Server
	store string // JetStream's directory, removed at Shutdown
	auth  Credentials
}

// StartServer starts an embedded server listening on addr (host:port;
// port 0 picks a free one) whose clients must present auth if it is not
// zero. It refuses an address other machines can reach (any but a loopback
// address) without auth. JetStream keeps its streams in a temporary
// directory: the queue lives as long as the tuning process, and a resumed
// run publishes its jobs again anyway.
func StartServer(addr string, auth Credentials) (*Server, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w %q: want host:port, as in %s", ErrAddress, addr, DefaultListen)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("%w %q: port %q: want 0 (any free port) to 65535", ErrAddress, addr, portText)
	}
	if !isLoopback(host) && auth.User == "" && auth.Token == "" {
		return nil, fmt.Errorf("%w: %s is reachable from other machines: give credentials (--nats-creds) or listen on 127.0.0.1", ErrInsecure, addr)
	}
	if auth.File != "" {
		return nil, fmt.Errorf("%w: an embedded server takes user:password or a token, not a NATS credentials file (that needs a server run with accounts)", ErrCredentials)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	store, err := os.MkdirTemp("", "evotune-nats-")
	if err != nil {
		return nil, fmt.Errorf("tuner/natspool: %w", err)
	}
	opts := &server.Options{
		ServerName:    "evotune",
		Host:          host,
		Port:          port,
		JetStream:     true,
		StoreDir:      store,
		NoLog:         true,
		NoSigs:        true,
		Username:      auth.User,
		Password:      auth.Password,
		Authorization: auth.Token,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		os.RemoveAll(store)
		return nil, fmt.Errorf("tuner/natspool: embedded NATS server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		os.RemoveAll(store)
		return nil, fmt.Errorf("tuner/natspool: embedded NATS server did not start listening on %s within 10 s (address in use?)", addr)
	}
	return &Server{ns: ns, store: store, auth: auth}, nil
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL returns the address clients on this machine dial, without
// credentials.
func (s *Server) URL() string { return s.ns.ClientURL() }

// Port returns the port the server listens on.
func (s *Server) Port() int {
	u, err := url.Parse(s.ns.ClientURL())
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}

// Shutdown stops the server and removes its store.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	os.RemoveAll(s.store)
}
