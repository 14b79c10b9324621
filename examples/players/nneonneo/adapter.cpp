// nneonneo-player: nneonneo/2048-ai (2048.cpp) as a player of evotune's player
// protocol on standard input and output: version 2 (evotune-player/2, several
// parameter sets at once) by default, version 1 with --protocol 1.
//
// The program's source is not part of this file: build.sh compiles this file
// with a checkout of https://github.com/nneonneo/2048-ai, whose 2048.cpp is
// #included below as one translation unit, so the program's own static
// functions do the work: init_tables, execute_move, count_distinct_tiles,
// score_heur_board and _score_toplevel_move (its search, its transposition
// table, its probability cutoff). Its interactive main is renamed by the
// preprocessor and never called, and its heuristic table becomes a pointer to
// a table, so that each parameter set has a table of its own and a board is
// searched with its set's table by moving a pointer, not by copying a table.
//
// What this file adds:
//   - the seven SCORE_* constants as protocol parameters, defaults read from
//     the checkout's own constants; a `set` rebuilds a heuristic table from
//     them with the heuristic part of the program's init_tables loop (same
//     types, same order of operations), checked at start-up against the
//     program's own table bit for bit;
//   - parameter sets: version 2 holds --sets of them (16 unless told), each
//     with its own values and its own table, allocated when the set is first
//     given (256 KiB each), and a board of a move request is searched with
//     the table of the set it names; version 1 is one set, given from the
//     start with the checkout's constants, so a set's moves are, bit for bit,
//     those of a version-1 session given the same values;
//   - a depth cap (--cap): the program's depth_limit, max(3, distinct - 2),
//     capped as in nn-harness; 0 keeps the program's adaptive depth;
//   - the move choice of the program's find_best_move, without its printing:
//     a fresh eval_state per root move, the first move of largest value > 0.
//
// Two places where evotune's rules and the program's differ, both at the
// edge: the program merges two 32768 tiles into one, evotune does not merge
// them, so a root move that only the program thinks legal is never chosen;
// and when no move is worth more than 0 (possible with a heuristic pushed
// negative) the program gives up, which a protocol player cannot: it plays
// the first legal move of largest value instead.

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

// The program's main() becomes an ordinary function that is never called; as
// such it lacks a return statement, which is harmless here.
//
// The program's `static float heur_score_table[65536];` becomes `static float
// (*g_heur)[65536];`, a pointer to a table, and its every use `(*g_heur)[...]`:
// init_tables and score_heur_board read and write whichever table g_heur
// points to. Nothing else changes, not a value nor the order of an operation.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wreturn-type"
#define main nneonneo_interactive_main
#define heur_score_table (*g_heur)
#include "2048.cpp"
#undef heur_score_table
#undef main
#pragma GCC diagnostic pop

#ifndef NNP_SOURCE
#define NNP_SOURCE "unknown"
#endif

static const char *const kProtocol = "evotune-player 1";

typedef float heur_table_t[65536];

// ---------------------------------------------------------------------------
// Parameters: the program's seven constants. Bounds: the powers in [1, 6],
// every weight from 0 to five times the program's value (wide enough for the
// constants tuned so far: at cap 2 the lost penalty went to 53,352 and the
// sum weight to 20.9). A checkout whose own constant lies outside gets the
// bound widened to it, so MIN <= DEFAULT <= MAX always holds.

struct Param {
    const char *name;
    float def;  // the checkout's constant
    double lo, hi;
};

static Param params[7] = {
    {"SCORE_LOST_PENALTY", SCORE_LOST_PENALTY, 0, 1000000},
    {"SCORE_MONOTONICITY_POWER", SCORE_MONOTONICITY_POWER, 1, 6},
    {"SCORE_MONOTONICITY_WEIGHT", SCORE_MONOTONICITY_WEIGHT, 0, 235},
    {"SCORE_SUM_POWER", SCORE_SUM_POWER, 1, 6},
    {"SCORE_SUM_WEIGHT", SCORE_SUM_WEIGHT, 0, 55},
    {"SCORE_MERGES_WEIGHT", SCORE_MERGES_WEIGHT, 0, 3500},
    {"SCORE_EMPTY_WEIGHT", SCORE_EMPTY_WEIGHT, 0, 1350},
};
static const int kParams = sizeof params / sizeof params[0];

// A parameter set: values and the heuristic table built from them. The table
// is NULL until the set is first given: version 2 allocates a set's table
// then, so a session that uses three sets holds three tables.
struct ParamSet {
    float val[kParams];
    heur_table_t *table;
};

static const int kMaxSets = 64;  // the protocol's limit
static int g_sets = 16;          // --sets: how many version 2 holds
static ParamSet sets[kMaxSets];  // version 2: set S is sets[S-1]; version 1: sets[0]

// The heuristic part of the program's init_tables() loop, with the constants
// read from v instead of the compile-time SCORE_* values. Keep it token for
// token as the program has it: float sums of double pow() terms, in the same
// order, or the table stops being the program's. One change: the loop's
// pow(rank, POWER) calls (ten a row, 655,360 a table) are looked up in tables
// of the 16 ranks' powers, made by the same calls; pow is a function of its
// arguments, so every term, and so the table, is the same bit for bit, in
// 0.3 ms rather than 8. A tuning run gives a set new values for every
// candidate.
static void build_heur_table(const float v[kParams], float *table) {
    const float LOST_PENALTY = v[0];
    const float MONOTONICITY_POWER = v[1];
    const float MONOTONICITY_WEIGHT = v[2];
    const float SUM_POWER = v[3];
    const float SUM_WEIGHT = v[4];
    const float MERGES_WEIGHT = v[5];
    const float EMPTY_WEIGHT = v[6];
    // The program's pow(rank, POWER): an int or unsigned rank and a float
    // power, both converted to double, the rank exactly.
    double sum_pow[16], mono_pow[16];
    for (int rank = 0; rank < 16; ++rank) {
        sum_pow[rank] = pow(rank, SUM_POWER);
        mono_pow[rank] = pow(rank, MONOTONICITY_POWER);
    }
    for (unsigned row = 0; row < 65536; ++row) {
        unsigned line[4] = {(row >> 0) & 0xf, (row >> 4) & 0xf, (row >> 8) & 0xf, (row >> 12) & 0xf};
        float sum = 0;
        int empty = 0;
        int merges = 0;
        int prev = 0;
        int counter = 0;
        for (int i = 0; i < 4; ++i) {
            int rank = line[i];
            sum += sum_pow[rank];
            if (rank == 0) {
                empty++;
            } else {
                if (prev == rank) {
                    counter++;
                } else if (counter > 0) {
                    merges += 1 + counter;
                    counter = 0;
                }
                prev = rank;
            }
        }
        if (counter > 0) {
            merges += 1 + counter;
        }
        float monotonicity_left = 0;
        float monotonicity_right = 0;
        for (int i = 1; i < 4; ++i) {
            if (line[i - 1] > line[i]) {
                monotonicity_left += mono_pow[line[i - 1]] - mono_pow[line[i]];
            } else {
                monotonicity_right += mono_pow[line[i]] - mono_pow[line[i - 1]];
            }
        }
        table[row] = LOST_PENALTY + EMPTY_WEIGHT * empty + MERGES_WEIGHT * merges -
                     MONOTONICITY_WEIGHT * std::min(monotonicity_left, monotonicity_right) - SUM_WEIGHT * sum;
    }
}

// init_tables, then the check that build_heur_table is the program's
// heuristic: with the checkout's constants both tables must agree bit for bit.
// If they do not, this checkout computes its heuristic differently from the
// loop above, and tuned constants would not mean what they say. The
// program's table stays as version 1's set, given from the start with the
// checkout's constants; version 2 has no use for it and lets it go.
static bool init_all_tables(int protocol) {
    heur_table_t *program = new heur_table_t[1];
    g_heur = program;
    init_tables();
    float defaults[kParams];
    for (int i = 0; i < kParams; ++i) defaults[i] = params[i].def;
    heur_table_t *check = new heur_table_t[1];
    build_heur_table(defaults, *check);
    bool same = memcmp(*program, *check, sizeof(heur_table_t)) == 0;
    delete[] check;
    if (protocol == 1) {
        memcpy(sets[0].val, defaults, sizeof defaults);
        sets[0].table = program;
    } else {
        delete[] program;
        g_heur = NULL;  // a move names a given set, whose table it points to
    }
    return same;
}

// ---------------------------------------------------------------------------
// Moves.

static int g_cap = 0;  // --cap: 0 = the program's adaptive depth

// The program's score_toplevel_move without its printing and timing, plus the
// cap: a fresh eval_state (so a fresh transposition table) per root move.
static float score_root_move(board_t board, int move) {
    eval_state state;
    state.depth_limit = std::max(3, count_distinct_tiles(board) - 2);
    if (g_cap > 0) state.depth_limit = std::min(state.depth_limit, g_cap);
    return _score_toplevel_move(state, board, move);
}

// Whether the board has two or more rank-15 cells (32768 tiles): a bit per
// cell, set where all four bits of the cell are, and a test for a second one.
static bool two_fifteens(board_t board) {
    board_t x = board & (board >> 1) & (board >> 2) & (board >> 3) & 0x1111111111111111ULL;
    return (x & (x - 1)) != 0;
}

// Legality by evotune's rules. They differ from the program's only when two
// 32768 tiles meet, so the program's execute_move decides for every board with
// fewer than two rank-15 cells, and a plain slide without that merge decides
// for the others. fifteens is two_fifteens(board), asked once a board.
static bool legal(board_t board, int move, bool fifteens) {
    if (!fifteens) return execute_move(move, board) != board;
    for (int line = 0; line < 4; ++line) {
        int v[4];
        for (int k = 0; k < 4; ++k) {
            int r, c;  // cell k of the line, in the order tiles slide toward
            switch (move) {
            case 0: r = k; c = line; break;      // up: toward row 0
            case 1: r = 3 - k; c = line; break;  // down
            case 2: r = line; c = k; break;      // left: toward column 0
            default: r = line; c = 3 - k; break; // right
            }
            v[k] = (int)((board >> (4 * (4 * r + c))) & 0xf);
        }
        // A line changes if a tile has an empty cell before it, or two
        // neighbouring tiles (empties skipped) are equal and below 15.
        int prev = 0;
        bool gap = false;
        for (int k = 0; k < 4; ++k) {
            if (v[k] == 0) {
                gap = true;
                continue;
            }
            if (gap) return true;
            if (v[k] == prev && prev != 15) return true;
            prev = v[k];
        }
    }
    return false;
}

// The program's find_best_move: the first move of largest value > 0, among the
// moves legal by evotune's rules; if none is worth more than 0, the first legal
// move of largest value. -1 when no move is legal.
static int choose_move(board_t board) {
    float best = 0;
    int bestmove = -1;
    float fallback = 0;
    int fallbackmove = -1;
    bool fifteens = two_fifteens(board);
    for (int move = 0; move < 4; ++move) {
        if (!legal(board, move, fifteens)) continue;
        float res = score_root_move(board, move);
        if (res > best) {
            best = res;
            bestmove = move;
        }
        if (fallbackmove < 0 || res > fallback) {
            fallback = res;
            fallbackmove = move;
        }
    }
    return bestmove >= 0 ? bestmove : fallbackmove;
}

// ---------------------------------------------------------------------------
// The protocol.

static int g_protocol = 2;  // --protocol

static void send(const std::string &line) {
    fwrite(line.data(), 1, line.size(), stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static std::vector<std::string> split(const std::string &s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && isspace((unsigned char)s[i])) ++i;
        size_t j = i;
        while (j < s.size() && !isspace((unsigned char)s[j])) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

// A decimal that reads back to exactly the float x (%.9g round-trips a float).
static std::string decimal(double x) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.9g", x);
    return buf;
}

// The set number at s[i, j): decimal, no sign, no leading zero. Returns the
// number (0 is one, out of range; so is any run of digits past kMaxSets, which
// gives kMaxSets + 1), or -1 if s[i, j) is not such a number.
static int set_number(const char *s, size_t i, size_t j) {
    if (i == j || (s[i] == '0' && j - i > 1)) return -1;
    int n = 0;
    for (size_t k = i; k < j; ++k) {
        if (s[k] < '0' || s[k] > '9') return -1;
        if (n <= kMaxSets) n = n * 10 + (s[k] - '0');
    }
    return std::min(n, kMaxSets + 1);
}

static std::string set_range() { return "1.." + std::to_string(g_sets); }

// "NAME=VALUE ..." from tok[from] on, for the set s: every parameter exactly
// once, each finite and within its bounds. Nothing changes unless all are
// good, so an error never leaves a mixture of old and new constants (nor a
// set given that was not). `what` begins each error text ("set" or "set S").
// Returns "" or the error text.
static std::string do_set(const std::vector<std::string> &tok, size_t from, ParamSet &s, const std::string &what) {
    float vals[kParams];
    bool seen[kParams] = {false};
    for (size_t t = from; t < tok.size(); ++t) {
        const std::string &kv = tok[t];
        size_t eq = kv.find('=');
        if (eq == std::string::npos) return what + ": '" + kv + "' is not NAME=VALUE";
        std::string name = kv.substr(0, eq), val = kv.substr(eq + 1);
        int p = -1;
        for (int i = 0; i < kParams; ++i)
            if (name == params[i].name) p = i;
        if (p < 0) return what + ": unknown parameter '" + name + "'";
        if (seen[p]) return what + ": parameter " + name + " given twice";
        char *end;
        errno = 0;
        double x = strtod(val.c_str(), &end);
        if (val.empty() || *end) return what + ": " + kv + " is not a number";
        if (!std::isfinite(x) || errno == ERANGE) return what + ": " + kv + " is not finite";
        if (x < params[p].lo || x > params[p].hi)
            return what + ": " + kv + " is outside [" + decimal(params[p].lo) + ", " + decimal(params[p].hi) + "]";
        vals[p] = (float)x;  // the program's constants are floats
        seen[p] = true;
    }
    for (int i = 0; i < kParams; ++i)
        if (!seen[i]) return what + ": missing parameter " + params[i].name;
    // The table is a function of the values alone: a set that changes none
    // (the defaults, say, which version 1's table holds from start-up) keeps it.
    if (s.table && memcmp(s.val, vals, sizeof vals) == 0) return "";
    if (!s.table) s.table = new heur_table_t[1];
    memcpy(s.val, vals, sizeof vals);
    build_heur_table(s.val, *s.table);
    return "";
}

// "set S NAME=VALUE ..." (version 2): S from 1 to SETS, then as version 1's
// set, for that set alone.
static std::string do_set2(const std::vector<std::string> &tok) {
    if (tok.size() < 2) return "set: no set number (protocol 2: set S NAME=VALUE ..., S in " + set_range() + ")";
    const std::string &num = tok[1];
    int n = set_number(num.c_str(), 0, num.size());
    if (n < 0)
        return "set: '" + num + "' is not a set number (protocol 2: set S NAME=VALUE ..., S in " + set_range() +
               ", decimal without sign or leading zero)";
    if (n < 1 || n > g_sets) return "set: set " + num + " is outside " + set_range();
    return do_set(tok, 2, sets[n - 1], "set " + num);
}

// hex_digit[c] is the value of the hex digit c, or -1.
static signed char hex_digit[256];

static void init_hex_digits() {
    memset(hex_digit, -1, sizeof hex_digit);
    for (int d = 0; d < 16; ++d) {
        hex_digit[(unsigned char)"0123456789abcdef"[d]] = (signed char)d;
        hex_digit[(unsigned char)"0123456789ABCDEF"[d]] = (signed char)d;
    }
}

// "move B1 ... Bk" (version 1) or "move S1:B1 ... Sk:Bk" (version 2), from
// the line's character at `from` on (after "move"): all boards are read
// before any is searched, so a bad one fails the request without wasted
// work. The reply goes to `reply`. The boards are parsed in place, with no
// string per token: at cap 1 a board's search takes a few microseconds, and a
// request holds dozens of boards. A board's set is a pointer to its table,
// which the search is pointed to before the board: no table is copied.
static void do_move(const std::string &line, size_t from, std::string &reply) {
    struct Job {
        board_t board;
        heur_table_t *table;
        size_t at, len;  // the board's token, for messages
    };
    static std::vector<Job> jobs;
    jobs.clear();
    const char *s = line.c_str();
    size_t i = from, n = line.size();
    for (;;) {
        while (i < n && isspace((unsigned char)s[i])) ++i;
        if (i == n) break;
        size_t j = i;
        while (j < n && !isspace((unsigned char)s[j])) ++j;
        heur_table_t *table = sets[0].table;
        size_t b0 = i;  // where the board begins, after "S:" in version 2
        if (g_protocol == 2) {
            size_t c = i;
            while (c < j && s[c] >= '0' && s[c] <= '9') ++c;
            int set = c < j && s[c] == ':' ? set_number(s, i, c) : -1;
            if (set < 0) {
                reply = "error move: '" + line.substr(i, j - i) + "' is not S:BOARD (protocol 2: a set number in " +
                        set_range() + " without leading zero, ':', then 0x and 1 to 16 hex digits)";
                return;
            }
            if (set < 1 || set > g_sets) {
                reply = "error move: '" + line.substr(i, j - i) + "': set " + line.substr(i, c - i) + " is outside " +
                        set_range();
                return;
            }
            table = sets[set - 1].table;
            if (!table) {
                reply = "error move: '" + line.substr(i, j - i) + "': set " + line.substr(i, c - i) +
                        " was never given (set S NAME=VALUE ...)";
                return;
            }
            b0 = c + 1;
        }
        bool ok = j - b0 >= 3 && j - b0 <= 18 && s[b0] == '0' && (s[b0 + 1] == 'x' || s[b0 + 1] == 'X');
        board_t b = 0;
        for (size_t k = b0 + 2; ok && k < j; ++k) {
            int d = hex_digit[(unsigned char)s[k]];
            ok = d >= 0;
            b = b << 4 | (board_t)d;
        }
        if (!ok) {
            reply = "error move: '" + line.substr(i, j - i) + "' is not a board (" +
                    (g_protocol == 2 ? "S:" : "") + "0x and 1 to 16 hex digits)";
            return;
        }
        jobs.push_back(Job{b, table, i, j - i});
        i = j;
    }
    if (jobs.empty()) {
        reply = "error move: no board";
        return;
    }
    static const char *const names[4] = {"up", "down", "left", "right"};  // the program's 0..3
    reply.assign("best");
    for (const Job &job : jobs) {
        g_heur = job.table;
        int m = choose_move(job.board);
        if (m < 0) {
            reply = "error move: board " + line.substr(job.at, job.len) + " has no legal move";
            return;
        }
        reply += ' ';
        reply += names[m];
    }
}

static int usage(const char *msg) {
    if (msg) fprintf(stderr, "nneonneo-player: %s\n", msg);
    fprintf(stderr,
            "usage: nneonneo-player [--cap N] [--protocol 1|2] [--sets N]\n"
            "  nneonneo/2048-ai as a player of evotune's player protocol on standard input\n"
            "  and output.\n"
            "  --cap N        depth cap: the program's depth_limit max(3, distinct_tiles - 2)\n"
            "                 capped at N more moves after the root move (2N+1 plies; caps 1\n"
            "                 to 3 are fixed depths); 0 (the default) keeps the program's\n"
            "                 adaptive depth\n"
            "  --protocol P   2 (the default): evotune-player/2, several parameter sets at\n"
            "                 once: after id it sends 'protocol 2 SETS', then takes\n"
            "                 'set S NAME=VALUE ...' and 'move S:0x... S:0x...', S the set\n"
            "                 of each board; 1: evotune-player/1, one parameter set:\n"
            "                 'set NAME=VALUE ...' and 'move 0x... 0x...'\n"
            "  --sets N       protocol 2: how many parameter sets it holds, 1 to 64 (default\n"
            "                 16); each takes 256 KiB once it is first given\n");
    return 2;
}

int main(int argc, char **argv) {
    bool sets_given = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            usage(NULL);
            return 0;
        }
        std::string flag, v;
        for (const char *f : {"--cap", "--protocol", "--sets"}) {
            size_t len = strlen(f);
            if (a == f && i + 1 < argc) {
                flag = f;
                v = argv[++i];
            } else if (a.compare(0, len + 1, std::string(f) + "=") == 0) {
                flag = f;
                v = a.substr(len + 1);
            }
            if (!flag.empty()) break;
        }
        if (flag.empty()) return usage(("unknown argument " + a).c_str());
        char *end;
        long x = strtol(v.c_str(), &end, 10);
        bool num = !v.empty() && !*end;
        if (flag == "--cap") {
            if (!num || x < 0 || x > 15) return usage(("bad --cap " + v + " (want 0 to 15)").c_str());
            g_cap = (int)x;
        } else if (flag == "--protocol") {
            if (!num || (x != 1 && x != 2)) return usage(("bad --protocol " + v + " (want 1 or 2)").c_str());
            g_protocol = (int)x;
        } else {
            if (!num || x < 1 || x > kMaxSets)
                return usage(("bad --sets " + v + " (want 1 to " + std::to_string(kMaxSets) + ")").c_str());
            g_sets = (int)x;
            sets_given = true;
        }
    }
    if (sets_given && g_protocol == 1) return usage("--sets is for protocol 2 (version 1 has one parameter set)");
    for (Param &p : params) {
        p.lo = std::min(p.lo, (double)p.def);
        p.hi = std::max(p.hi, (double)p.def);
    }
    if (!init_all_tables(g_protocol)) {
        fprintf(stderr, "nneonneo-player: this 2048.cpp builds its heuristic table differently from "
                        "the adapter's copy of its init_tables loop; update build_heur_table\n");
        return 1;
    }

    init_hex_digits();
    std::ios::sync_with_stdio(false);
    std::string line;
    if (!std::getline(std::cin, line)) return 0;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line != kProtocol) {
        send("error expected '" + std::string(kProtocol) + "', got '" + line + "'");
        return 2;
    }
    send(std::string("id nneonneo-2048-ai ") + NNP_SOURCE + " cap=" + std::to_string(g_cap));
    if (g_protocol == 2) send("protocol 2 " + std::to_string(g_sets));
    for (const Param &p : params)
        send(std::string("param ") + p.name + " float " + decimal(p.def) + " " + decimal(p.lo) + " " +
             decimal(p.hi));
    send("ready");
    std::string reply;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        size_t first = 0;
        while (first < line.size() && isspace((unsigned char)line[first])) ++first;
        if (line.compare(first, 4, "move") == 0 && (first + 4 == line.size() || isspace((unsigned char)line[first + 4]))) {
            do_move(line, first + 4, reply);
            send(reply);
            continue;
        }
        std::vector<std::string> tok = split(line);
        if (tok.empty() || tok[0][0] == '#') continue;
        if (tok[0] == "quit") return 0;
        if (tok[0] == "set") {
            std::string err = g_protocol == 2 ? do_set2(tok) : do_set(tok, 1, sets[0], "set");
            send(err.empty() ? "ok" : "error " + err);
        } else {
            send("error unknown command '" + tok[0] + "'");
        }
    }
    return 0;  // end of input: evotune went away
}
