package vespatest

import (
	"errors"

	"github.com/govespa/govespa/vespa/vespatest/internal/configserver"
	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// ConfigServerURL returns the base URL of the config-server API, starting it
// on a free loopback port the first time unless [WithConfigServerAddr] did.
// It returns "" if the listener cannot be opened, or when the config server
// was not started before [Server.Close].
func (s *Server) ConfigServerURL() string {
	cs, err := s.startConfigServer("127.0.0.1:0")
	if err != nil {
		s.cfg.logger.Error("vespatest: config server", "err", err)
		return ""
	}
	return cs.URL
}

func (s *Server) startConfigServer(addr string) (*configserver.Server, error) {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if s.cfgServer != nil {
		return s.cfgServer, nil
	}
	if s.cfgClosed {
		return nil, errors.New("vespatest: config server: the emulator is closed")
	}
	cs, err := configserver.Start(configContainer{s}, addr, s.srv.ErrorLog, s.cfg.logger)
	if err != nil {
		return nil, err
	}
	s.cfgServer = cs
	return cs, nil
}

// configContainer is the Server as its config server sees it.
type configContainer struct{ s *Server }

func (c configContainer) NextSession() int64 {
	id := max(c.s.sessions.Add(1), 2)
	c.s.sessions.Store(id)
	return id
}

func (c configContainer) Activate(pkg *schema.AppPackage) error { return c.s.activate(pkg) }
func (c configContainer) SetHealth(code string) error           { return c.s.SetHealth(code) }
func (c configContainer) Generation() int64                     { return c.s.app.Load().Generation }
func (c configContainer) Addr() string                          { return c.s.ln.Addr().String() }

func (c configContainer) DeployFault(path string) (fault.Fault, bool) {
	return c.s.faults.Pick(fault.OpDeploy, path)
}
