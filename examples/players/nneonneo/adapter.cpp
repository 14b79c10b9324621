// nneonneo-player: nneonneo/2048-ai (2048.cpp) as a player of evotune's player
// protocol, evotune-player/1, on standard input and output.
//
// The program's source is not part of this file: build.sh compiles this file
// with a checkout of https://github.com/nneonneo/2048-ai, whose 2048.cpp is
// #included below as one translation unit, so the program's own static
// functions do the work: init_tables, execute_move, count_distinct_tiles,
// score_heur_board and _score_toplevel_move (its search, its transposition
// table, its probability cutoff). Its interactive main is renamed by the
// preprocessor and never called.
//
// What this file adds:
//   - the seven SCORE_* constants as protocol parameters, defaults read from
//     the checkout's own constants; a `set` rebuilds the heuristic table from
//     them with the heuristic part of the program's init_tables loop (same
//     types, same order of operations), checked at start-up against the
//     program's own table bit for bit;
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
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wreturn-type"
#define main nneonneo_interactive_main
#include "2048.cpp"
#undef main
#pragma GCC diagnostic pop

#ifndef NNP_SOURCE
#define NNP_SOURCE "unknown"
#endif

static const char *const kProtocol = "evotune-player 1";

// ---------------------------------------------------------------------------
// Parameters: the program's seven constants. Bounds: the powers in [1, 6],
// every weight from 0 to five times the program's value (wide enough for the
// constants tuned so far: at cap 2 the lost penalty went to 53,352 and the
// sum weight to 20.9). A checkout whose own constant lies outside gets the
// bound widened to it, so MIN <= DEFAULT <= MAX always holds.

struct Param {
    const char *name;
    float def;   // the checkout's constant
    double lo, hi;
    float val;   // in use
};

static Param params[7] = {
    {"SCORE_LOST_PENALTY", SCORE_LOST_PENALTY, 0, 1000000, SCORE_LOST_PENALTY},
    {"SCORE_MONOTONICITY_POWER", SCORE_MONOTONICITY_POWER, 1, 6, SCORE_MONOTONICITY_POWER},
    {"SCORE_MONOTONICITY_WEIGHT", SCORE_MONOTONICITY_WEIGHT, 0, 235, SCORE_MONOTONICITY_WEIGHT},
    {"SCORE_SUM_POWER", SCORE_SUM_POWER, 1, 6, SCORE_SUM_POWER},
    {"SCORE_SUM_WEIGHT", SCORE_SUM_WEIGHT, 0, 55, SCORE_SUM_WEIGHT},
    {"SCORE_MERGES_WEIGHT", SCORE_MERGES_WEIGHT, 0, 3500, SCORE_MERGES_WEIGHT},
    {"SCORE_EMPTY_WEIGHT", SCORE_EMPTY_WEIGHT, 0, 1350, SCORE_EMPTY_WEIGHT},
};
static const int kParams = sizeof params / sizeof params[0];

// The heuristic part of the program's init_tables() loop, with the constants
// read from params instead of the compile-time SCORE_* values. Keep it token
// for token as the program has it: float sums of double pow() terms, in the
// same order, or the table stops being the program's.
static void build_heur_table() {
    const float LOST_PENALTY = params[0].val;
    const float MONOTONICITY_POWER = params[1].val;
    const float MONOTONICITY_WEIGHT = params[2].val;
    const float SUM_POWER = params[3].val;
    const float SUM_WEIGHT = params[4].val;
    const float MERGES_WEIGHT = params[5].val;
    const float EMPTY_WEIGHT = params[6].val;
    for (unsigned row = 0; row < 65536; ++row) {
        unsigned line[4] = {(row >> 0) & 0xf, (row >> 4) & 0xf, (row >> 8) & 0xf, (row >> 12) & 0xf};
        float sum = 0;
        int empty = 0;
        int merges = 0;
        int prev = 0;
        int counter = 0;
        for (int i = 0; i < 4; ++i) {
            int rank = line[i];
            sum += pow(rank, SUM_POWER);
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
                monotonicity_left += pow(line[i - 1], MONOTONICITY_POWER) - pow(line[i], MONOTONICITY_POWER);
            } else {
                monotonicity_right += pow(line[i], MONOTONICITY_POWER) - pow(line[i - 1], MONOTONICITY_POWER);
            }
        }
        heur_score_table[row] = LOST_PENALTY + EMPTY_WEIGHT * empty + MERGES_WEIGHT * merges -
                                MONOTONICITY_WEIGHT * std::min(monotonicity_left, monotonicity_right) -
                                SUM_WEIGHT * sum;
    }
}

// init_tables, then the check that build_heur_table is the program's
// heuristic: with the checkout's constants both tables must agree bit for bit.
// If they do not, this checkout computes its heuristic differently from the
// loop above, and tuned constants would not mean what they say.
static bool init_all_tables() {
    init_tables();
    static float program_heur[65536];
    memcpy(program_heur, heur_score_table, sizeof program_heur);
    build_heur_table();
    return memcmp(program_heur, heur_score_table, sizeof program_heur) == 0;
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

// Legality by evotune's rules. They differ from the program's only when two
// 32768 tiles meet, so the program's execute_move decides for every board with
// fewer than two rank-15 cells, and a plain slide without that merge decides
// for the others.
static bool legal(board_t board, int move) {
    int fifteens = 0;
    for (int i = 0; i < 16; ++i) fifteens += ((board >> (4 * i)) & 0xf) == 0xf;
    if (fifteens < 2) return execute_move(move, board) != board;
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
    for (int move = 0; move < 4; ++move) {
        if (!legal(board, move)) continue;
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

// "set NAME=VALUE ...": every parameter exactly once, each finite and within
// its bounds. Nothing changes unless all are good, so an error never leaves a
// mixture of old and new constants. Returns "" or the error text.
static std::string do_set(const std::vector<std::string> &tok) {
    float vals[kParams];
    bool seen[kParams] = {false};
    for (size_t t = 1; t < tok.size(); ++t) {
        const std::string &kv = tok[t];
        size_t eq = kv.find('=');
        if (eq == std::string::npos) return "set: '" + kv + "' is not NAME=VALUE";
        std::string name = kv.substr(0, eq), val = kv.substr(eq + 1);
        int p = -1;
        for (int i = 0; i < kParams; ++i)
            if (name == params[i].name) p = i;
        if (p < 0) return "set: unknown parameter '" + name + "'";
        if (seen[p]) return "set: parameter " + name + " given twice";
        char *end;
        errno = 0;
        double x = strtod(val.c_str(), &end);
        if (val.empty() || *end) return "set: " + kv + " is not a number";
        if (!std::isfinite(x) || errno == ERANGE) return "set: " + kv + " is not finite";
        if (x < params[p].lo || x > params[p].hi)
            return "set: " + kv + " is outside [" + decimal(params[p].lo) + ", " + decimal(params[p].hi) + "]";
        vals[p] = (float)x;  // the program's constants are floats
        seen[p] = true;
    }
    for (int i = 0; i < kParams; ++i)
        if (!seen[i]) return std::string("set: missing parameter ") + params[i].name;
    // The table is a function of the values alone: a set that changes none
    // (the defaults, say, which the table holds from start-up) keeps it.
    bool same = true;
    for (int i = 0; i < kParams; ++i) same = same && memcmp(&params[i].val, &vals[i], sizeof(float)) == 0;
    if (same) return "";
    for (int i = 0; i < kParams; ++i) params[i].val = vals[i];
    build_heur_table();
    return "";
}

// "move B1 ... Bk", from the line's character at `from` on (after "move"):
// all boards are read before any is searched, so a bad one fails the request
// without wasted work. The reply goes to `reply`. The boards are parsed in
// place, with no string per token: at cap 1 a board's search takes a few
// microseconds, and a request holds dozens of boards.
static void do_move(const std::string &line, size_t from, std::string &reply) {
    static std::vector<board_t> boards;
    static std::vector<std::pair<size_t, size_t>> where;  // each board's token, for messages
    boards.clear();
    where.clear();
    const char *s = line.c_str();
    size_t i = from, n = line.size();
    for (;;) {
        while (i < n && isspace((unsigned char)s[i])) ++i;
        if (i == n) break;
        size_t j = i;
        while (j < n && !isspace((unsigned char)s[j])) ++j;
        bool ok = j - i >= 3 && j - i <= 18 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
        board_t b = 0;
        for (size_t k = i + 2; ok && k < j; ++k) {
            unsigned char c = s[k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            ok = d >= 0;
            b = b << 4 | (board_t)d;
        }
        if (!ok) {
            reply = "error move: '" + line.substr(i, j - i) + "' is not a board (0x and 1 to 16 hex digits)";
            return;
        }
        boards.push_back(b);
        where.emplace_back(i, j - i);
        i = j;
    }
    if (boards.empty()) {
        reply = "error move: no board";
        return;
    }
    static const char *const names[4] = {"up", "down", "left", "right"};  // the program's 0..3
    reply.assign("best");
    for (size_t k = 0; k < boards.size(); ++k) {
        int m = choose_move(boards[k]);
        if (m < 0) {
            reply = "error move: board " + line.substr(where[k].first, where[k].second) + " has no legal move";
            return;
        }
        reply += ' ';
        reply += names[m];
    }
}

static int usage(const char *msg) {
    if (msg) fprintf(stderr, "nneonneo-player: %s\n", msg);
    fprintf(stderr,
            "usage: nneonneo-player [--cap N]\n"
            "  nneonneo/2048-ai as a player of evotune's player protocol (evotune-player/1)\n"
            "  on standard input and output.\n"
            "  --cap N   depth cap: the program's depth_limit max(3, distinct_tiles - 2) capped\n"
            "            at N more moves after the root move (2N+1 plies; caps 1 to 3 are fixed\n"
            "            depths); 0 (the default) keeps the program's adaptive depth\n");
    return 2;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        std::string v;
        if (a == "--cap" && i + 1 < argc) {
            v = argv[++i];
        } else if (a.compare(0, 6, "--cap=") == 0) {
            v = a.substr(6);
        } else if (a == "-h" || a == "--help") {
            usage(NULL);
            return 0;
        } else {
            return usage(("unknown argument " + a).c_str());
        }
        char *end;
        long c = strtol(v.c_str(), &end, 10);
        if (v.empty() || *end || c < 0 || c > 15) return usage(("bad --cap " + v + " (want 0 to 15)").c_str());
        g_cap = (int)c;
    }
    for (Param &p : params) {
        p.lo = std::min(p.lo, (double)p.def);
        p.hi = std::max(p.hi, (double)p.def);
    }
    if (!init_all_tables()) {
        fprintf(stderr, "nneonneo-player: this 2048.cpp builds its heuristic table differently from "
                        "the adapter's copy of its init_tables loop; update build_heur_table\n");
        return 1;
    }

    std::ios::sync_with_stdio(false);
    std::string line;
    if (!std::getline(std::cin, line)) return 0;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line != kProtocol) {
        send("error expected '" + std::string(kProtocol) + "', got '" + line + "'");
        return 2;
    }
    send(std::string("id nneonneo-2048-ai ") + NNP_SOURCE + " cap=" + std::to_string(g_cap));
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
            std::string err = do_set(tok);
            send(err.empty() ? "ok" : "error " + err);
        } else {
            send("error unknown command '" + tok[0] + "'");
        }
    }
    return 0;  // end of input: evotune went away
}
