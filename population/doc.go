// Package population implements derivative-free optimizers with an
// ask/tell interface and fully serializable state: CMA-ES (CMAES) and the
// noisy cross-entropy method (CEM), with box bounds, normalised
// coordinates and IPOP restarts, plus the benchmark functions and runner
// behind "evotune optbench". Nothing here knows about 2048.
//
// # Files
//
//	optimizer.go    the Optimizer interface and the errors
//	method.go       Method names, ParseMethod, and New: one constructor by name
//	config.go       Config, shared by both methods: defaults and Validate
//	core.go         ask/tell bookkeeping both methods embed: the generation in
//	                progress, ranking, counters, the best point
//	stop.go         stop conditions (Reason) and IPOP restarts (Restarts)
//	cmaes.go        CMA-ES: its parameters, sampling and update
//	cmaes_state.go  CMA-ES's state: MarshalBinary and UnmarshalBinary
//	lra.go          CMA-ES's learning rate adaptation (LRA)
//	settle.go       CMA-ES's settling on a plateau of noise
//	cem.go          CEM: its parameters, sampling and update
//	bounds.go       normalised coordinates and the bound transform
//	linalg.go       eigendecompositions of the covariance matrices
//	state.go        the binary state format, MarshalBinary's encoding
//	bench.go        the benchmark functions and runner behind optbench
//
// # Constructing by name
//
// Callers that choose the method from a config or a flag build through
//
//	opt, err := population.New(method, cfg, population.Options{Elite: ρ})
//
// where method comes from ParseMethod ("cmaes" or "cem"; its error lists
// both) and Options carries the one-method settings, each read only by its
// method: Elite by CEM, Active by CMA-ES. NewCMAES and NewCEM take the full
// method configs.
//
// # Ask and tell
//
// FITNESS IS MINIMISED. A caller that maximises a score (the tuner's mean
// game score) tells the negated score.
//
//	opt, err := population.New(population.MethodCMAES, population.Config{
//		X0: w0, Scale: scale, Sigma0: 0.3, Seed: seed}, population.Options{})
//	for {
//		xs := opt.Ask()                 // λ candidates, caller coordinates
//		fit := evaluate(xs)             // any order, any number of goroutines
//		if err := opt.Tell(fit); err != nil { … }
//		state, _ := opt.MarshalBinary() // checkpoint between generations
//		if reason, stop := opt.Stop(); stop { … }
//	}
//
// Ask returns the same slices until the generation completes; they are
// fresh each generation, so callers may keep them. Values are told all at
// once (Tell) or, on the concrete types, one index at a time (TellAt, in any
// order); the update runs when the last one arrives. Candidates are ranked by (fitness, index), so a
// run depends only on the values told, never on the order or the schedule
// that produced them (TestTellOrder checks this bit for bit). The optimizer
// is not safe for concurrent use; the caller owns the goroutines.
// λ changes on an IPOP restart: size buffers by len(Ask()). The mean returns
// to X0 on a restart, so a caller that validates Mean() should keep the best
// validated mean itself.
//
// The Optimizer interface holds what its callers (the tuner, the benchmark
// runner) use: Ask and Tell, Mean and Best, Stop, the counters and the
// state. For a history line it also reports Method, Sigma (the step size)
// and AxisRatio, √(λ_max/λ_min) of the sampling covariance: for CMA-ES of
// C, read from the last eigendecomposition when C has not changed since
// (otherwise C is decomposed once more, the sampling state untouched); for
// CEM of its diagonal or full covariance. What only the package's tests
// need, TellAt and Generation, stays on the concrete types.
//
// # Normalised coordinates and bounds
//
// The optimizers work on y with x = X0 + Scale ⊙ y: the search starts at
// y = 0 and Sigma0 is a fraction of each coordinate's Scale, so weights of
// very different magnitudes are tuned together (the tuner passes
// Scale_i = |x0_i|, 1 where x0_i = 0, and Sigma0 = 0.3). Tolerances (TolX)
// are in these units.
//
// Optional Lower/Upper bounds are enforced with pycma's BoundTransform
// (BoxConstraintsLinQuadTransformation), applied per coordinate in
// normalised coordinates: the identity inside the box away from its faces,
// a quadratic within a margin a = min((u−l)/2, (1+|bound|)/20) of each face,
// and a periodic mirror outside. The optimizer samples, ranks and updates
// the untransformed points; only the evaluated candidates (and Mean, Best)
// are mapped. The map is smooth, so an optimum on a face is approached like
// an interior one. Without bounds there is no transformation at all and the
// algorithms are exactly the textbook ones.
//
// # CMA-ES
//
// CMAES is the (μ/μ_w, λ)-CMA-ES of Hansen's tutorial (arXiv:1604.00772),
// with its parameters exactly: λ = 4 + ⌊3 ln n⌋, μ = ⌊λ/2⌋,
// w'_i = ln((λ+1)/2) − ln i, positive weights normalised to sum 1,
// μ_eff = (Σw)²/Σw², c_σ = (μ_eff+2)/(n+μ_eff+5),
// d_σ = 1 + 2 max(0, √((μ_eff−1)/(n+1)) − 1) + c_σ,
// c_c = (4+μ_eff/n)/(n+4+2μ_eff/n), c_1 = 2/((n+1.3)²+μ_eff),
// c_μ = min(1−c_1, 2(μ_eff−2+1/μ_eff)/((n+2)²+μ_eff)), c_m = 1,
// E‖N(0,I)‖ ≈ √n(1 − 1/(4n) + 1/(21n²)). Cumulative step-size adaptation;
// h_σ = [‖p_σ‖/√(1−(1−c_σ)^(2(g+1))) < (1.4 + 2/(n+1)) E‖N(0,I)‖], with the
// (1−h_σ)c_c(2−c_c) correction of the rank-one term; rank-one and rank-μ
// updates. C is kept exactly symmetric and decomposed with gonum's
// mat.EigenSym lazily, after more than 1/((c_1+c_μ)·n·10) generations
// (purecmaes's "λ/(c_1+c_μ)/n/10 evaluations"; every generation at the
// default λ for n ≤ 30). With Active, the worst λ−μ candidates get the
// tutorial's negative weights, scaled to −min(1 + c_1/c_μ,
// 1 + 2μ⁻_eff/(μ_eff+2), (1−c_1−c_μ)/(n c_μ)) in total, each multiplied by
// n/‖C^(−1/2) y‖².
//
// With LRA, learning rate adaptation (LRA-CMA-ES, Nomura, Akimoto & Ono
// 2023, arXiv:2304.03473) follows each update: the mean's step and σ²C's
// step, in the local coordinates of the old distribution (Σ^(−1/2)Δm and
// Σ^(−1/2)ΔΣΣ^(−1/2)/√2), feed moving averages E and V of the step and its
// squared norm (rates β_m = 0.1, β_Σ = 0.03), whose signal-to-noise
// estimate (‖E‖² − β/(2−β)V)/(V − ‖E‖²) moves each learning rate η ≤ 1
// toward the one at which it would be α = 1.4, by at most a factor
// exp(min(γη, β)), γ = 0.1. The step is then taken η-scaled,
// m = m_old + η_m Δm and σ²C = Σ_old + η_Σ ΔΣ, split into σ and C with
// det C = 1, and σ is multiplied by the old η_m over the new (σ ∝ 1/η_m).
// Under noise the mean then moves by an average of many generations'
// selections instead of random walking on one, with a step size large
// enough for the candidates to differ by more than the noise. The
// evolution paths are not scaled. C is decomposed every generation, so
// that C^(−1/2) is the old C's exactly. The constants and the step are
// the cmaes library's (0.13.1), checked against it on 720 steps
// (testdata/lra.py); on a 5-D sphere with noise of deviation 1 it ends
// 15 times nearer the optimum than plain CMA-ES (TestLRANoisySphere), and
// without noise it converges more slowly.
//
// With Settle, settling follows each update: the mean's local step B⟨z⟩_w
// (C^(−1/2) of the step over σ, the vector the σ path takes) feeds moving
// averages E and V at rate 0.1, as LRA's do, kept as averages of the steps
// so far (divided by the sum of their weights), and their signal-to-noise
// estimate, corrected so that pure noise gives 0 however many steps it
// averages, over its deviation under pure noise is a z score; and the
// generation's mean fitness is kept for a climb test, the latest quarter
// of the generations (5 at least) against the quarter before, by a z test
// at 2 on their pooled variance. From the 10th generation on, η moves by
// a factor exp(0.1η·r), at most 1, with r = clip(z − 0.5, −1, 1), but not
// below 0 while the run climbs. The update is then taken η-scaled:
// m = m_old + η Δm, C = C_old + η ΔC and log σ = log σ_old + η Δlog σ;
// the paths are not scaled. Unlike LRA, σ is not raised as η falls. On a
// plateau of noise z is about 0 ± 1, η falls about as 1/(1 + k/15), and
// the mean, C and σ stop wandering (on pure noise, over 150 generations,
// the settled mean travels a seventh as far as plain CMA-ES's and σ's log
// range is an eighth: TestSettleFlat); on a slope whose direction holds,
// and on a sphere, whose steps point nowhere in particular once σ has
// adapted but whose fitness keeps falling, it stays 1 and the run is plain
// CMA-ES's (TestSettleClimbs, TestSettleHoldsWhileClimbing).
//
// With Mirrored, mirrored sampling with pairwise selection (Brockhoff,
// Auger, Hansen, Arnold & Hohm 2010; Auger, Brockhoff & Hansen 2011):
// candidates 2i and 2i+1 are m + σy and m − σy for one normal sample (an
// odd λ's last candidate has its own), and the update weighs the better of
// each pair, in their order, ahead of every worse one, so that the worse
// of a pair is never selected: were both selected their steps would
// cancel in the mean and bias the step size down. Each selected step is
// still N(0, C)-distributed under random selection, so the parameters are
// unchanged. Its check is its slow twin, plain CMA-ES told each pair's
// worse value pushed behind all the better ones (TestPairwiseSelection,
// bit for bit). Under common random numbers, as the tuner's games are,
// the two of a pair differ by their direction alone.
//
// # Stop conditions
//
// Checked after every generation, with pycma's defaults (Config documents
// how to change them):
//
//	target        a value below TargetF was told (terminal)
//	maxevals      Evaluations() ≥ MaxEvals (terminal)
//	tolfun        the best values of the last 10+⌈30n/λ⌉ generations, and the
//	              values of this generation, each span less than 1e-11
//	stagnation    over the last 20% of the generations (at least 120+⌈30n/λ⌉,
//	              at most 20000) the median of the newest 30% of both the best
//	              and the median values is no better than that of the oldest 30%
//	tolx          σ·max(|p_c,i|, √C_ii) < 1e-11 for all i (CEM: every std)
//	tolupsigma    σ·max √eig(C) > 1e20·σ0 (divergence)
//	conditioncov  cond(C) > 1e14, or C not positive definite
//	noeffectaxis  m + 0.1σ·√λ_i·b_i == m for axis i = g mod n (CMA-ES)
//	noeffectcoord m_i + 0.2σ√C_ii == m_i for some i
//
// All but target and maxevals are local: with Restarts = IPOP they restart
// the search from X0 with Sigma0 and λ doubled (Auger & Hansen 2005), at most
// MaxRestarts (default 9) times, until the budget is spent. Ask and Tell keep
// working after a stop; ending the loop is the caller's decision.
//
// With Noisy (the tuner's setting) tolfun and stagnation are off: noise
// alone trips them while the distribution still moves. A noisy run, with or
// without IPOP, then stops or restarts only when the distribution itself has
// collapsed or broken down (tolx, tolupsigma, conditioncov, noeffectaxis,
// noeffectcoord); on pure noise that does not happen in 600 generations
// (TestNoisyIPOP), so a noisy IPOP run in practice keeps its first λ.
//
// # CEM
//
// CEM samples λ points from a Gaussian (diagonal by default; Full for a full
// covariance, decomposed with mat.EigenSym every generation), keeps the best
// ρλ (ρ = Elite, default 0.25 as in the tuner's config), and refits:
//
//	m ← α m_elite + (1−α) m,  v ← β v_elite + (1−β) v + Z_t
//
// with the elites' mean and (maximum-likelihood) variance or covariance
// about that mean, α = β = 0.7 (the usual smoothing range), and Szita &
// Lőrincz's decreasing noise Z_t = Noise·σ0²·max(0, 1 − t/NoiseGenerations),
// defaults 0.05 and 50: their Z_t = max(5 − t/10, 0) with their σ0² = 100,
// restated in normalised coordinates. The default λ keeps at least 5 elites,
// and n+1 with a full covariance (so that the elite covariance has full
// rank): max(⌈5/ρ⌉, 4+⌊3 ln n⌋), resp. max(⌈5/ρ⌉, ⌈(n+1)/ρ⌉); 20 for the
// tuner's problems. CEM is the baseline of the Tetris literature and the
// table below shows why CMA-ES is the default: without noise to fight,
// CEM's variance shrinks faster than its mean moves once the added noise has
// decayed, so it stalls short of 1e-8 except on low-dimensional spheres
// (IPOP's larger populations rescue it on the separable functions, never on
// Rosenbrock).
//
// # State
//
// MarshalBinary saves everything needed to continue bit for bit: the
// resolved config, the PCG state, counters, restart bookkeeping, histories,
// best point, the distribution (mean, C, its eigenvectors and eigenvalue
// roots, paths, σ), LRA's moving averages and learning rates, settling's
// averages, steps and rate, and a
// generation in progress (its normal samples and the values told so far).
// The format is versioned binary: "EVPOP", version (4 when settling, 3
// when mirrored, 2 with LRA, else 1),
// kind (CMA-ES or CEM), fields with floats as IEEE-754 bits, CRC-32.
// UnmarshalBinary (or Unmarshal, for either kind) rejects garbage with an
// error wrapping ErrState and never panics (FuzzUnmarshal); an accepted
// state marshals back to the same bytes. Derived parameters (weights,
// learning rates) are recomputed, not stored. Continuation is bit-exact on
// the same architecture; restoring on another (where Go may fuse
// multiply-adds) continues correctly but not to the same bits.
//
// Randomness: one math/rand/v2 PCG per optimizer, seeded (Seed,
// 0x9e3779b97f4a7c15); candidates use rand.Rand.NormFloat64 on it.
//
// # Benchmarks
//
// NewFunction gives sphere, ellipsoid (condition 1e6,
// f = Σ 10^(6(i−1)/(n−1)) x_i²), Rosenbrock and Rastrigin with the
// standard starts: x0 = 1, σ0 = 1 for sphere and ellipsoid; x0 = 0, σ0 = 0.5
// for Rosenbrock; x0 uniform in [−5.12, 5.12]^n from PCG(run seed, 1),
// σ0 = 2 for Rastrigin. RunBench runs an optimizer with its defaults; run r
// uses the seed splitmix64(splitmix64(Seed) + r). A run's evaluations are
// counted up to the first candidate (in index order) below the target; the
// median counts failed runs as infinitely long.
//
// Measured with "evotune optbench --optimizer O --function F --dim N
// --restarts R --runs 21" (seed 1, target 1e-8, budget 1e5·n evaluations),
// successes/21 and median evaluations:
//
//	function    n   CMA-ES        CMA-ES IPOP    CEM          CEM IPOP
//	sphere      5   21   663      21     663     15  1456     21   1456
//	sphere     10   21  1348      21    1348      0     -     21   7171
//	sphere     20   21  2535      21    2535      0     -     21  22708
//	ellipsoid   5   21  1994      21    1994      0     -     21  20850
//	ellipsoid  10   21  5770      21    5770      0     -     21  55428
//	ellipsoid  20   21 18094      21   18094      0     -     21 125146
//	rosenbrock  5   20  1981      21    1981      0     -      0      -
//	rosenbrock 10   20  6090      21    6090      0     -      0      -
//	rosenbrock 20   20 19717      21   19717      0     -      0      -
//	rastrigin   5    0     -      21   20510      0     -     21  16229
//	rastrigin  10    0     -      21   80716      0     -     21  49047
//	rastrigin  20    0     -      21  213993      0     -     21 144410
//
// Against pycma 4.4 (active off, 21 runs): sphere-10D 1,348 vs 1,306
// (+3.2%), ellipsoid-10D 5,770 vs 5,477 (+5.3%), Rosenbrock-10D 6,090 vs
// 5,829 (+4.5%). The one failed Rosenbrock run in each dimension ends in the
// local minimum near (−1, 1, …, 1) (f ≈ 3.99), as a few percent of pycma's
// runs do; IPOP's restart solves it.
//
// IPOP on Rastrigin against pycma 4.4.0's cma.fmin(f, x0, 2, restarts=9,
// incpopsize=2), default options, 21 runs each, median evaluations:
// 20,510 vs 22,553 (5-D), 80,716 vs 81,019 (10-D), 213,993 vs 218,168
// (20-D). Both restart on tolfun after about as many generations per
// population size, from x0 with σ0. pycma's sizes are ⌊(4+3 ln n)·2^k⌋
// (5-D: 8, 17, 35, 70, 141), these λ0·2^k; restarting from a fresh uniform
// x0 (pycma with a callable x0) or using pycma's sizes moves the mean over
// 210 runs by less than 2%, so neither is done. Such a median sits at the
// restart where the 11th run succeeds and jumps by a whole restart between
// seeds (5-D, seeds 1–10: 13,272 to 21,683); pooled over seeds 1–10 it is
// 20,233 (5-D) and 81,163 (10-D).
//
// pycma's numbers for the functions without restarts exist for 10-D only. For the other dimensions, an
// independent implementation of the same tutorial, CyberAgent's cmaes 0.9.1
// (Debian's python3-cmaes, whose active update is always on), was measured
// on this machine the same way (21 runs, median evaluations to 1e-8) and
// compared with "--active":
//
//	function    n   this package  cmaes 0.9.1
//	sphere      5    21   654      21   669   (−2%)
//	sphere     10    21  1329      21  1351   (−2%)
//	sphere     20    21  2563      21  2535   (+1%)
//	ellipsoid   5    21  1453      21  1512   (−4%)
//	ellipsoid  10    21  4040      21  4204   (−4%)
//	ellipsoid  20    21 13329      21 13174   (+1%)
//	rosenbrock  5    21  1689      21  1831   (−8%)
//	rosenbrock 10    20  4985      21  5041   (−1%)
//	rosenbrock 20    20 16855      20 16419   (+3%)
//
// One generation (ask + tell) takes 19 µs at n = 10 and 141 µs at n = 30
// (BenchmarkCMAESGeneration), with 8 allocations per generation whatever λ:
// the candidates (one block), and the eigendecomposition.
package population
