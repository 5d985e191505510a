// Package reliability proves DESIGN §3 and §8 on the whole system: the real
// chakshu binary as separate web and worker processes on one PostgreSQL, the
// GitHub simulator and scripted model in the test process, crashes (kill -9),
// injected GitHub faults, a stopped worker, credential redaction on every
// surface and hostile input on every endpoint. The code is all in _test.go
// files; CHAKSHU_SOAK=full (make soak) runs the full sizes.
package reliability
