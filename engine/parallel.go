package engine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// PlayContext is PlayLimit that gives up between moves once ctx is done, so
// that even a slow deep game stops within one move.
func PlayContext(ctx context.Context, seed uint64, p Player, maxMoves int) (Result, error) {
	if r, ok := p.(Resetter); ok {
		r.Reset()
	}
	rng := NewGameRand(seed)
	b := NewGameBoard(rng)
	res := Result{Seed: seed}
	done := ctx.Done() // a non-blocking receive costs nanoseconds; a move far more
	for b.CanMove() && (maxMoves <= 0 || res.Moves < maxMoves) {
		select {
		case <-done:
			return res, ctx.Err()
		default:
		}
		d := p.Move(b)
		nb, score, ok := b.Move(d)
		if !ok {
			panic(fmt.Sprintf("engine: player chose illegal move %v on %v", d, b.Hex()))
		}
		res.Score += score
		res.Moves++
		b = nb.Spawn(rng.Uint64())
	}
	res.Final = b
	res.MaxTile = b.MaxTile()
	return res, nil
}

// Workers resolves a worker count: n itself if positive, else every core.
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// PlayOn plays games 0..n-1 on the given players, one goroutine per player:
// the project's one way of playing games in parallel. Games are handed out
// in index order to whichever player is free; prepare(i, w) readies
// players[w] for game i (switching its evaluator, say) and returns the
// game's seed. It is called on the goroutine of player w, so per-player
// state indexed by w needs no lock.
// done(i, r), if not nil, receives each result from the goroutine that
// played it, so results land by index and never depend on the number of
// players or on scheduling. On cancellation PlayOn returns ctx's error once
// the games in flight have stopped (within one move).
func PlayOn(ctx context.Context, players []Player, n int, prepare func(i, w int) uint64, maxMoves int, done func(i int, r Result)) error {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w, p := range players[:min(len(players), max(n, 1))] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, err := PlayContext(ctx, prepare(i, w), p, maxMoves)
				if err != nil {
					continue // cancelled: drain the remaining jobs
				}
				if done != nil {
					done(i, r)
				}
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	return ctx.Err()
}

// PlayGames plays games 0..n-1, game i with seed seeds(i), on workers
// players (0 = one per core) made by newPlayer, through PlayOn. done, if not
// nil, is called after each game from the worker that played it.
func PlayGames(ctx context.Context, n, workers int, seeds func(i int) uint64, newPlayer func() (Player, error), maxMoves int, done func(i int, r Result)) ([]Result, error) {
	players := make([]Player, min(Workers(workers), max(n, 1)))
	for w := range players {
		p, err := newPlayer()
		if err != nil {
			return nil, err
		}
		players[w] = p
	}
	results := make([]Result, n)
	err := PlayOn(ctx, players, n, func(i, _ int) uint64 { return seeds(i) }, maxMoves, func(i int, r Result) {
		results[i] = r
		if done != nil {
			done(i, r)
		}
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}
