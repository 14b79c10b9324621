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

// PlayGames plays games 0..n-1, game i with seed seeds(i), on workers
// goroutines (0 = every core), each with its own player from newPlayer.
// Results land in slots by index, so they do not depend on the worker count
// or on scheduling. done, if not nil, is called after each game from the
// worker that played it. On cancellation it returns ctx's error once the
// games in flight have stopped.
func PlayGames(ctx context.Context, n, workers int, seeds func(i int) uint64, newPlayer func() (Player, error), maxMoves int, done func(i int, r Result)) ([]Result, error) {
	workers = min(Workers(workers), max(n, 1))
	players := make([]Player, workers)
	for w := range players {
		p, err := newPlayer()
		if err != nil {
			return nil, err
		}
		players[w] = p
	}
	results := make([]Result, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, err := PlayContext(ctx, seeds(i), p, maxMoves)
				if err != nil {
					continue // cancelled: drain the remaining jobs
				}
				results[i] = r
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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}
