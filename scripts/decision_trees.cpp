// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Generates the Merge decision trees of CCA_C_BBDT and CCA_C_DRAG (Bolelli et al. 2024, section III-B-7):
//     g++ -O2 -std=c++17 -o /tmp/dt scripts/decision_trees.cpp && /tmp/dt modules/cudacca/src/cuda
// writes c_bbdt_tree.hpp and c_drag_graph.hpp into the given folder. Standalone C++17, no dependencies,
// deterministic (the ctest cudacca_decision_trees regenerates both headers and compares them with the
// committed ones).
//
// THE MASK (Grana et al.'s BBDT naming; block X's top-left pixel at (0, 0), rows -2..1, columns -2..3):
//     a b c d e f          P = {a,b,g,h} NW, Q = {c,d,i,j} N, R = {e,f,k,l} NE, S = {m,n,q,r} W,
//     g h i j k l          X = {o,p,s,t}.
//     m n o p              The 15 conditions, in this order (index = bit of a rule):
//     q r s t                  b c d e g h i j k m n o p r s
// a, f, l, q and t are never tested: a, f, l, q touch no other block of the mask than their own (a block is
// one node: which of its pixels is foreground only matters through the pixels that touch a neighbour), and t
// only decides whether X is foreground without touching P, Q, R or S: X alone needs no union (Initialization
// made every block a root), so "new label" and "no action" are the same on the GPU.
//
// THE DECISION TABLE. For each of the 2^15 rules (foreground bits of the conditions): C = the blocks
// 8-connected to X,
//     P iff h&&o;   Q iff (i||j)&&(o||p);   R iff k&&p;   S iff (n||r)&&(o||s);
// and the adjacencies between neighbour blocks as the mask shows them,
//     P-Q iff (b||h)&&(c||i);  Q-R iff (d||j)&&(e||k);  P-S iff (g||h)&&(m||n);  Q-S iff i&&n  (P-R, R-S never).
// An action is a subset of {P,Q,R,S} (a 4-bit mask: P 1, Q 2, R 4, S 8, the kEdge* encoding of
// block_connectivity.cuh): X is united with each of its blocks. It is VALID when it holds exactly one block
// of each connected component of the graph (C, those adjacencies restricted to C): pairs of adjacent
// neighbour blocks are already in one tree when X's thread is done (the induction next to the merge kernel,
// block_decision_tree.cuh). A rule's action set is a 16-bit mask over the 16 actions.
//
// BBDT (Grana, Borghesani and Cucchiara 2010, "Optimized block-based connected components labeling with
// decision trees", IEEE TIP 19(6)): the optimal decision tree of the table by dynamic programming over the
// 3^15 partial assignments (Schumacher and Sevcik 1976). For a state s (each condition 0, 1 or don't care):
// AND(s) = the AND of the action sets of the rules that match s; if AND(s) != 0, s is a leaf (cost 0);
// otherwise cost(s) = min over the don't-care conditions i of cost(s|i=0) + cost(s|i=1) + 2^(don't-cares of
// s) (every rule that reaches s pays one test), ties to the smallest i. The tree is read from the
// all-don't-care root; a leaf takes the numerically smallest action of its set.
//
// DRAG (Bolelli, Allegretti, Baraldi and Grana 2018, "Spaghetti labeling: directed acyclic graphs for
// block-based connected components labeling", IEEE TIP 29): two subtrees are EQUIVALENT when they have the
// same shape and conditions and every pair of corresponding leaves has intersecting action sets; merging
// one into the other narrows the leaves to the intersections. Merges are made greedily, the largest
// subtrees first (candidates grouped by shape), until none is left; then every leaf takes the smallest
// action of its (narrowed) set and identical subtrees are shared. Tests and reads per rule are the tree's.
//
// Emission: nested if/else (BBDT), labels and gotos for the nodes reached along several paths (DRAG), each
// a function template over `px`, where px(kH) says whether mask pixel h is foreground
// (decision_tree_mask.hpp defines the names and the CUDACCA_DT_FN qualifiers).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kConditions = 15;
const char* const kNames[kConditions] = { "b", "c", "d", "e", "g", "h", "i", "j", "k", "m", "n", "o", "p", "r", "s" };
enum { B, C, D, E, G, H, I, J, K, M, N, O, P, R, S };
enum : unsigned { kNW = 1, kN = 2, kNE = 4, kW = 8 };

/** The action set (bit a: action mask a is valid) of a rule (bit i: condition i is foreground). */
uint16_t actionSet(unsigned rule)
{
    auto on = [rule](int i) { return ((rule >> i) & 1u) != 0; };
    unsigned connected = 0;
    if (on(H) && on(O)) connected |= kNW;
    if ((on(I) || on(J)) && (on(O) || on(P))) connected |= kN;
    if (on(K) && on(P)) connected |= kNE;
    if ((on(N) || on(R)) && (on(O) || on(S))) connected |= kW;
    const unsigned blocks[4] = { kNW, kN, kNE, kW };
    bool adjacent[4][4] = {};
    auto link = [&](int u, int v, bool yes) { adjacent[u][v] = adjacent[v][u] = yes; };
    link(0, 1, (on(B) || on(H)) && (on(C) || on(I)));
    link(1, 2, (on(D) || on(J)) && (on(E) || on(K)));
    link(0, 3, (on(G) || on(H)) && (on(M) || on(N)));
    link(1, 3, on(I) && on(N));
    // components of (connected, adjacent): component[u] = smallest block reachable inside `connected`
    int component[4];
    for (int u = 0; u < 4; ++u) component[u] = u;
    for (int pass = 0; pass < 4; ++pass)
        for (int u = 0; u < 4; ++u)
            for (int v = 0; v < 4; ++v)
                if ((connected & blocks[u]) && (connected & blocks[v]) && adjacent[u][v])
                    component[u] = std::min(component[u], component[v]);
    uint16_t set = 0;
    for (unsigned action = 0; action < 16; ++action)
    {
        if (action & ~connected)
            continue;
        int count[4] = {};
        for (int u = 0; u < 4; ++u)
            if (action & blocks[u]) ++count[component[u]];
        bool valid = true;
        for (int u = 0; u < 4; ++u)
            if ((connected & blocks[u]) && count[component[u]] != 1) valid = false;
        if (valid) set |= static_cast<uint16_t>(1u << action);
    }
    return set;
}

unsigned smallestAction(uint16_t set)
{
    unsigned a = 0;
    while (!((set >> a) & 1u)) ++a;
    return a;
}

struct Node
{
    int condition = -1;          //!< -1: leaf
    Node* child[2] = { nullptr, nullptr };
    uint16_t actions = 0;        //!< leaf: its action set
    int id = 0;
};

struct Forest
{
    std::vector<std::unique_ptr<Node>> nodes;
    Node* make()
    {
        nodes.emplace_back(new Node);
        nodes.back()->id = static_cast<int>(nodes.size()) - 1;
        return nodes.back().get();
    }
};

// ---- BBDT -----------------------------------------------------------------------------------------------

struct Bbdt
{
    std::vector<uint32_t> pow3;
    std::vector<uint16_t> andSet;
    std::vector<int32_t> cost;
    std::vector<int8_t> split;

    void solve()
    {
        pow3.assign(kConditions + 1, 1);
        for (int i = 1; i <= kConditions; ++i) pow3[i] = pow3[i - 1] * 3;
        const uint32_t states = pow3[kConditions];
        andSet.assign(states, 0);
        cost.assign(states, 0);
        split.assign(states, -1);
        int digit[kConditions] = {}; // 0, 1, 2 = don't care; state = sum digit[i] * 3^i
        // children (a don't care made 0 or 1) have smaller indices: one pass in increasing order
        for (uint32_t s = 0; s < states; ++s)
        {
            int dontCares = 0;
            unsigned rule = 0;
            int first = -1;
            for (int i = 0; i < kConditions; ++i)
            {
                if (digit[i] == 2) { ++dontCares; if (first < 0) first = i; }
                else if (digit[i] == 1) rule |= 1u << i;
            }
            if (first < 0)
                andSet[s] = actionSet(rule);
            else
                andSet[s] = andSet[s - 2 * pow3[first]] & andSet[s - pow3[first]];
            if (andSet[s] == 0)
            {
                int32_t best = INT32_MAX;
                for (int i = 0; i < kConditions; ++i)
                {
                    if (digit[i] != 2) continue;
                    const int32_t c = cost[s - 2 * pow3[i]] + cost[s - pow3[i]] + (int32_t(1) << dontCares);
                    if (c < best) { best = c; split[s] = static_cast<int8_t>(i); }
                }
                cost[s] = best;
            }
            for (int i = 0; i < kConditions && ++digit[i] == 3; ++i) digit[i] = 0; // next state
        }
    }

    Node* build(Forest& forest, uint32_t s) const
    {
        Node* n = forest.make();
        if (split[s] < 0)
        {
            n->actions = andSet[s];
            return n;
        }
        const int i = split[s];
        n->condition = i;
        n->child[0] = build(forest, s - 2 * pow3[i]);
        n->child[1] = build(forest, s - pow3[i]);
        return n;
    }
};

// ---- DRAG -----------------------------------------------------------------------------------------------

void collect(Node* n, std::vector<Node*>& out, std::vector<char>& seen)
{
    if (seen[n->id]) return;
    seen[n->id] = 1;
    out.push_back(n);
    if (n->condition >= 0) { collect(n->child[1], out, seen); collect(n->child[0], out, seen); } // emission order
}

std::vector<Node*> reachable(Node* root, size_t total)
{
    std::vector<Node*> out;
    std::vector<char> seen(total, 0);
    collect(root, out, seen);
    return out;
}

std::string shape(const Node* n)
{
    if (n->condition < 0) return "L";
    return "(" + std::to_string(n->condition) + shape(n->child[0]) + shape(n->child[1]) + ")";
}

int treeSize(const Node* n) { return n->condition < 0 ? 1 : 1 + treeSize(n->child[0]) + treeSize(n->child[1]); }

/** The narrowed sets that merging b into a would give a's leaves (same shape); false if one is empty. */
bool narrowings(const Node* a, const Node* b, std::map<const Node*, uint16_t>& narrowed)
{
    if (a->condition < 0)
    {
        auto it = narrowed.emplace(a, a->actions).first;
        it->second &= b->actions;
        return it->second != 0;
    }
    return narrowings(a->child[0], b->child[0], narrowed) && narrowings(a->child[1], b->child[1], narrowed);
}

void redirect(Node* root, size_t total, Node* from, Node* to, Node*& rootRef)
{
    for (Node* n : reachable(root, total))
        if (n->condition >= 0)
            for (Node*& c : n->child)
                if (c == from) c = to;
    if (rootRef == from) rootRef = to;
}

/** Merges equivalent subtrees until none is left; returns the number of merges. */
int mergeEquivalent(Forest& forest, Node*& root)
{
    int merges = 0;
    for (;;)
    {
        std::vector<Node*> nodes = reachable(root, forest.nodes.size());
        std::map<std::string, std::vector<Node*>> groups;
        for (Node* n : nodes) groups[shape(n)].push_back(n);
        std::vector<std::pair<int, const std::vector<Node*>*>> order; // (-size, group), deterministic
        for (auto& g : groups)
        {
            std::sort(g.second.begin(), g.second.end(), [](const Node* x, const Node* y) { return x->id < y->id; });
            if (g.second.size() > 1) order.emplace_back(-treeSize(g.second.front()), &g.second);
        }
        std::stable_sort(order.begin(), order.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        bool merged = false;
        for (const auto& entry : order)
        {
            const std::vector<Node*>& g = *entry.second;
            for (size_t u = 0; u < g.size() && !merged; ++u)
                for (size_t v = u + 1; v < g.size() && !merged; ++v)
                {
                    std::map<const Node*, uint16_t> narrowed;
                    if (!narrowings(g[u], g[v], narrowed))
                        continue;
                    for (auto& kv : narrowed) const_cast<Node*>(kv.first)->actions = kv.second;
                    redirect(root, forest.nodes.size(), g[v], g[u], root);
                    merged = true;
                }
            if (merged) break;
        }
        if (!merged) return merges;
        ++merges;
    }
}

/** Shares identical subtrees once every leaf holds one action: returns the canonical node of n. */
Node* share(Node* n, std::map<std::string, Node*>& canonical)
{
    std::string key;
    if (n->condition < 0)
        key = "L" + std::to_string(smallestAction(n->actions));
    else
    {
        n->child[0] = share(n->child[0], canonical);
        n->child[1] = share(n->child[1], canonical);
        key = std::to_string(n->condition) + ":" + std::to_string(n->child[0]->id) + ":" +
              std::to_string(n->child[1]->id);
    }
    return canonical.emplace(key, n).first->second;
}

// ---- emission -------------------------------------------------------------------------------------------

std::string actionText(uint16_t set)
{
    const unsigned a = smallestAction(set);
    if (a == 0) return "0u";
    std::string s;
    const char* names[4] = { "kActionNW", "kActionN", "kActionNE", "kActionW" };
    for (int b = 0; b < 4; ++b)
        if (a & (1u << b)) s += (s.empty() ? "" : " | ") + std::string(names[b]);
    return s;
}

std::string pad(int depth) { return std::string(4 * depth, ' '); }

void emitTree(std::ostream& out, const Node* n, int depth)
{
    if (n->condition < 0)
    {
        out << pad(depth) << "return " << actionText(n->actions) << ";\n";
        return;
    }
    out << pad(depth) << "if (px(k" << static_cast<char>(kNames[n->condition][0] - 'a' + 'A') << "))\n";
    out << pad(depth) << "{\n";
    emitTree(out, n->child[1], depth + 1);
    out << pad(depth) << "}\n" << pad(depth) << "else\n" << pad(depth) << "{\n";
    emitTree(out, n->child[0], depth + 1);
    out << pad(depth) << "}\n";
}

void emitGraph(std::ostream& out, const Node* n, int depth, const std::map<const Node*, int>& label,
               std::map<const Node*, bool>& emitted)
{
    if (n->condition < 0)
    {
        out << pad(depth) << "return " << actionText(n->actions) << ";\n";
        return;
    }
    const auto it = label.find(n);
    if (it != label.end())
    {
        if (emitted[n])
        {
            out << pad(depth) << "goto node" << it->second << ";\n";
            return;
        }
        emitted[n] = true;
        out << pad(depth - 1) << "node" << it->second << ":\n";
    }
    out << pad(depth) << "if (px(k" << static_cast<char>(kNames[n->condition][0] - 'a' + 'A') << "))\n";
    out << pad(depth) << "{\n";
    emitGraph(out, n->child[1], depth + 1, label, emitted);
    out << pad(depth) << "}\n" << pad(depth) << "else\n" << pad(depth) << "{\n";
    emitGraph(out, n->child[0], depth + 1, label, emitted);
    out << pad(depth) << "}\n";
}

const char* const kLicense =
    "// This file is part of cudacca, an OpenCV extra module.\n"
    "// It is subject to the license terms in the LICENSE file found in the top-level directory.\n";

void header(std::ostream& out, const char* guard, const std::string& comment)
{
    out << "// Generated by scripts/decision_trees.cpp; do not edit.\n" << kLicense << "\n" << comment << "\n"
        << "#ifndef " << guard << "\n#define " << guard << "\n\n#include \"decision_tree_mask.hpp\"\n\n"
        << "namespace cv { namespace cuda { namespace cudacca { namespace dt {\n\n";
}

void footer(std::ostream& out, const char* guard)
{
    out << "}\n\n}}}} // namespace cv::cuda::cudacca::dt\n\n#endif // " << guard << "\n";
}

bool writeFile(const std::string& path, const std::string& text)
{
    std::ofstream f(path, std::ios::binary);
    f << text;
    return static_cast<bool>(f);
}

int countLeaves(const std::vector<Node*>& nodes)
{
    return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [](const Node* n) { return n->condition < 0; }));
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];

    Bbdt dp;
    dp.solve();
    const uint32_t root = dp.pow3[kConditions] - 1; // every condition don't care
    const int32_t rootCost = dp.cost[root];

    // BBDT
    Forest treeForest;
    Node* tree = dp.build(treeForest, root);
    const std::vector<Node*> treeNodes = reachable(tree, treeForest.nodes.size());
    const int treeLeaves = countLeaves(treeNodes);
    const int treeInner = static_cast<int>(treeNodes.size()) - treeLeaves;
    char stats[512];
    std::snprintf(stats, sizeof stats,
                  "%d conditions, %d rules; %d tests and %d leaves (%d nodes); %.4f tests per rule on average "
                  "(%d / %d)",
                  kConditions, 1 << kConditions, treeInner, treeLeaves, treeInner + treeLeaves,
                  static_cast<double>(rootCost) / (1 << kConditions), rootCost, 1 << kConditions);
    {
        std::ostringstream out;
        header(out, "CUDACCA_C_BBDT_TREE_HPP",
               "// CCA_C_BBDT's Merge: Grana et al. 2010's optimal decision tree (BBDT) over the 15 conditions of the\n"
               "// 2x2-block scan mask, as a nested if/else. bbdtUnions(px) returns the neighbour blocks (kAction*) that\n"
               "// block X must be united with: exactly one of each group of connected neighbours (scripts/decision_trees.cpp\n"
               "// says how it is built; block_decision_tree.cuh why it is enough).\n"
               "// Tree: " + std::string(stats) + ".\n");
        out << "template <class Pixel>\nCUDACCA_DT_FN unsigned bbdtUnions(const Pixel& px)\n{\n";
        emitTree(out, tree, 1);
        footer(out, "CUDACCA_C_BBDT_TREE_HPP");
        if (!writeFile(dir + "/c_bbdt_tree.hpp", out.str())) { std::perror("c_bbdt_tree.hpp"); return 1; }
    }

    // DRAG: a second copy of the tree (same DP), merged
    Forest graphForest;
    Node* graph = dp.build(graphForest, root);
    const int merges = mergeEquivalent(graphForest, graph);
    std::map<std::string, Node*> canonical;
    graph = share(graph, canonical);
    const std::vector<Node*> graphNodes = reachable(graph, graphForest.nodes.size());
    const int graphLeaves = countLeaves(graphNodes);
    const int graphInner = static_cast<int>(graphNodes.size()) - graphLeaves;
    // labels for the inner nodes with several parents (numbered in emission order)
    std::map<const Node*, int> parents;
    for (const Node* n : graphNodes)
        if (n->condition >= 0)
            for (const Node* c : n->child) ++parents[c];
    std::map<const Node*, int> label;
    for (const Node* n : graphNodes) // graphNodes is in depth-first order from the root: the emission order
        if (n->condition >= 0 && parents[n] > 1)
            label.emplace(n, static_cast<int>(label.size()));
    char graphStats[512];
    std::snprintf(graphStats, sizeof graphStats,
                  "%d tests and %d leaves (%d nodes, %d reached along several paths) against the tree's %d nodes; "
                  "%d merges of equivalent subtrees",
                  graphInner, graphLeaves, graphInner + graphLeaves, static_cast<int>(label.size()),
                  treeInner + treeLeaves, merges);
    {
        std::ostringstream out;
        header(out, "CUDACCA_C_DRAG_GRAPH_HPP",
               "// CCA_C_DRAG's Merge: BBDT's tree (c_bbdt_tree.hpp) with its equivalent subtrees merged into a directed\n"
               "// acyclic graph (Bolelli et al. 2018's DRAG). Same tests per rule as the tree; a node reached along several\n"
               "// paths is written once, under a label, and reached by goto. dragUnions(px) returns the neighbour blocks\n"
               "// (kAction*) that block X must be united with (scripts/decision_trees.cpp says how it is built).\n"
               "// Graph: " + std::string(graphStats) + ".\n");
        out << "template <class Pixel>\nCUDACCA_DT_FN unsigned dragUnions(const Pixel& px)\n{\n";
        std::map<const Node*, bool> emitted;
        emitGraph(out, graph, 1, label, emitted);
        footer(out, "CUDACCA_C_DRAG_GRAPH_HPP");
        if (!writeFile(dir + "/c_drag_graph.hpp", out.str())) { std::perror("c_drag_graph.hpp"); return 1; }
    }
    std::printf("BBDT: %s\nDRAG: %s\n", stats, graphStats);
    return 0;
}
