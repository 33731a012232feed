package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rigkit/rigkit/serve"
	"github.com/rigkit/rigkit/skincodec"
)

func init() {
	register(&command{
		name:    "serve",
		usage:   "[--addr 127.0.0.1:8080] [--concurrency N] [--max-body MiB] [--cache-mb MiB] [--timeout D] [--read-timeout D] [--write-timeout D] [--max-inflight MiB] [--max-inflight-per-client MiB] [--min-body-rate KiB/s] [--poses N] [--seed S] [--checkpoint CKPT]",
		summary: "HTTP scoring service for RL trainers (POST /score, /score/tokens, /score/batch)",
		run:     runServe,
	})
}

func runServe(args []string, stdout io.Writer) error {
	fs := newFlags("serve")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	conc := fs.Int("concurrency", 0, "rigs scored at once (0: number of CPUs)")
	maxBody := fs.Int64("max-body", 64, "largest request body in MiB")
	timeout := fs.Duration("timeout", 60*time.Second, "per-request time limit")
	cacheMB := fs.Int64("cache-mb", 512, "memory bound of the prepared-mesh cache in MiB (0: no cache)")
	ckpt := fs.String("checkpoint", "", checkpointUsage)
	poses := fs.Int("poses", 8, "random poses of the deformation reward")
	seed := fs.Int64("seed", 1, "seed of poses and samples")
	clips := fs.Bool("clips", true, clipsUsage)
	readTimeout := fs.Duration("read-timeout", 30*time.Second, "time to read a whole request, body included (slower uploads are dropped)")
	writeTimeout := fs.Duration("write-timeout", 0, "time from the end of a request's headers to the end of its response (0: read-timeout + timeout + 10s)")
	inflight := fs.Int64("max-inflight", 0, "request bodies held at once in MiB; beyond it requests get 503 at once (0: 4 x max-body)")
	perClient := fs.Int64("max-inflight-per-client", 0, "request bodies held at once from one client address in MiB (0: half of max-inflight, at least max-body)")
	minRate := fs.Int64("min-body-rate", 64, "slowest a request body may arrive, in KiB/s, after a 2 s grace; slower senders get 408")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, rest[0])
	}
	if *cacheMB < 0 {
		return fmt.Errorf("%w: --cache-mb must be at least 0", errUsage)
	}
	cfg := serve.Config{
		MaxBodyBytes:     *maxBody << 20,
		Concurrency:      *conc,
		Timeout:          *timeout,
		CacheBytes:       *cacheMB << 20,
		Options:          judgeOptions(*poses, *seed, *clips),
		Conn:             serve.ConnTimeouts{ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout},
		MaxInFlightBytes: *inflight << 20,
		Client:           serve.ClientLimits{MaxInFlightBytes: *perClient << 20, MinBodyRate: *minRate << 10},
	}
	if *cacheMB == 0 {
		cfg.CacheBytes = -1 // serve.Config reads 0 as the default
	}
	if *ckpt != "" {
		tok, err := skincodec.Load(*ckpt)
		if err != nil {
			return err
		}
		cfg.SkinTokenizer = tok
	}
	srv := serve.New(cfg)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	hs := srv.HTTPServer()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "rig serve: listening on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", *addr, err)
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "rig serve: shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), *timeout+5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
