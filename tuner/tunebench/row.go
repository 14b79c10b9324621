package tunebench

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/evotune/evotune/engine/stats"
)

// runRow runs the row of problem p under o (a peer's when o.Peer is set)
// on each run seed, keeping its results in o.Out as they end and reading
// back those kept before. A run that fails ends the row, which records
// why (Result.fail); the error returned is one that ends the benchmark:
// ctx's end (nothing written for the row, which did not end), or o.Out's.
func runRow(ctx context.Context, p Problem, o Options) (Result, error) {
	if o.Confirm {
		if err := CheckConfirmSeeds(o.Seeds); err != nil {
			return Result{}, fmt.Errorf("tunebench: %w", err)
		}
	}
	b, seeds := newBench(p, o)
	res := b.result()
	b.label = res.Name()
	if o.Out != "" {
		r, path, ok, err := storedRow(o.Out, &res)
		if err != nil {
			return res, err
		}
		if ok {
			b.note("row read back: " + path)
			return r, nil
		}
	}
	start, kept := 0.0, false
	for _, seed := range seeds {
		if o.Out != "" {
			r, path, ok, err := storedSeed(o.Out, &res, seed)
			if err != nil {
				return res, err
			}
			if ok {
				res.Runs = append(res.Runs, r.Runs[0])
				start, kept = r.Start, true
				b.note(fmt.Sprintf("seed %d  read back: %s", seed, path))
				continue
			}
		}
		run, err := b.runSeed(ctx, seed)
		if err != nil {
			if ctx.Err() != nil {
				return res, err
			}
			res.fail(err)
			break
		}
		res.Runs = append(res.Runs, run)
		if o.Out != "" {
			one := res
			one.RunSeeds, one.Runs, one.Start = []uint64{seed}, []Run{run}, stats.Summarize(b.start).Mean
			one.summarize()
			path := seedPath(o.Out, &res, seed)
			if err := store(path, &one); err != nil {
				return res, err
			}
			b.note(fmt.Sprintf("seed %d  written: %s", seed, path))
		}
	}
	// The start's figure is the same for every run seed: measured in this
	// row's runs, or read back with a seed's.
	if b.start != nil || !kept {
		start = stats.Summarize(b.start).Mean
	}
	res.Start = start
	res.summarize()
	if o.Out != "" {
		path := filepath.Join(rowDir(o.Out, &res), rowFile)
		if err := store(path, &res); err != nil {
			return res, err
		}
		b.note("row written: " + path)
	}
	return res, nil
}

// runSeed runs the row on one run seed: the tuner, or o.Peer.
func (b *bench) runSeed(ctx context.Context, seed uint64) (Run, error) {
	if len(b.o.Peer) > 0 {
		run, err := b.runPeer(ctx, seed)
		if err != nil {
			return run, fmt.Errorf("tunebench: %s, peer %s, run seed %d: %w", b.p.Name, b.o.Peer[0], seed, err)
		}
		return run, nil
	}
	run, err := b.run(ctx, seed)
	if err != nil {
		return run, fmt.Errorf("tunebench: %s, run seed %d: %w", b.p.Name, seed, err)
	}
	return run, nil
}

// note tells Options.Note of a file kept or read back.
func (b *bench) note(what string) {
	if b.o.Note != nil {
		b.o.Note(b.where(), b.label, what)
	}
}
