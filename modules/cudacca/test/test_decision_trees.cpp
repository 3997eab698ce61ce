// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The generated Merge decision trees of CCA_C_BBDT and CCA_C_DRAG (src/cuda/c_bbdt_tree.hpp,
// src/cuda/c_drag_graph.hpp, written by scripts/decision_trees.cpp), on the host: for every one of the 2^20
// configurations of the 2x2-block scan mask's 20 pixels, the unions each returns are a valid action, checked
// by an independent computation from the pixels' coordinates (which neighbour blocks touch X, which touch
// each other, one block of each group), and the trees read only the 15 pixels they may (never a, f, l, q, t),
// each at most once, the graph as many as the tree. No GPU needed.

#include "test_precomp.hpp"

#include "../src/cuda/c_bbdt_tree.hpp"
#include "../src/cuda/c_drag_graph.hpp"

#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace opencv_test { namespace {

namespace dt = cv::cuda::cudacca::dt;

//! The mask's pixels, rows -2 .. 1 and columns -2 .. 3 from block X's top-left pixel o.
struct MaskPixel
{
    char name;
    int dy, dx;
};
const MaskPixel kMask[20] = {
    { 'a', -2, -2 }, { 'b', -2, -1 }, { 'c', -2, 0 }, { 'd', -2, 1 }, { 'e', -2, 2 }, { 'f', -2, 3 },
    { 'g', -1, -2 }, { 'h', -1, -1 }, { 'i', -1, 0 }, { 'j', -1, 1 }, { 'k', -1, 2 }, { 'l', -1, 3 },
    { 'm', 0, -2 },  { 'n', 0, -1 },  { 'o', 0, 0 },  { 'p', 0, 1 },
    { 'q', 1, -2 },  { 'r', 1, -1 },  { 's', 1, 0 },  { 't', 1, 1 },
};

//! Block of a mask pixel: 0 P (NW), 1 Q (N), 2 R (NE), 3 S (W), 4 X; as the kAction bit 1 << block for P..S.
int blockOf(const MaskPixel& p)
{
    const int by = (p.dy + 2) / 2, bx = (p.dx + 2) / 2; // 0 or 1; 0, 1 or 2
    return by == 0 ? bx : (bx == 0 ? 3 : 4);
}

//! Whether the unions `got` are valid for configuration `fg` (bit i: kMask[i] foreground); else why not.
bool validUnions(unsigned fg, unsigned got, std::string& why)
{
    static const std::vector<std::pair<int, int>> neighbours = [] { // 8-neighbour pixel pairs of the mask
        std::vector<std::pair<int, int>> v;
        for (int p = 0; p < 20; ++p)
            for (int q = 0; q < 20; ++q)
                if (std::max(std::abs(kMask[p].dy - kMask[q].dy), std::abs(kMask[p].dx - kMask[q].dx)) == 1)
                    v.emplace_back(p, q);
        return v;
    }();
    bool touch[5][5] = {};
    for (const auto& pq : neighbours)
        if (((fg >> pq.first) & 1u) && ((fg >> pq.second) & 1u))
            touch[blockOf(kMask[pq.first])][blockOf(kMask[pq.second])] = true;
    unsigned connected = 0;
    for (int b = 0; b < 4; ++b)
        if (touch[4][b])
            connected |= 1u << b;
    int group[4] = { 0, 1, 2, 3 }; // smallest block reachable through touching blocks of `connected`
    for (int round = 0; round < 4; ++round)
        for (int u = 0; u < 4; ++u)
            for (int v = 0; v < 4; ++v)
                if (((connected >> u) & 1u) && ((connected >> v) & 1u) && touch[u][v] && group[v] < group[u])
                    group[u] = group[v];
    std::ostringstream s;
    if (got & ~connected)
        s << "unites with a block not connected to X (connected " << connected << ")";
    for (int u = 0; u < 4 && s.str().empty(); ++u)
    {
        if (!((connected >> u) & 1u))
            continue;
        int n = 0;
        for (int v = 0; v < 4; ++v)
            if (((got >> v) & 1u) && group[v] == group[u])
                ++n;
        if (n != 1)
            s << n << " unions with the group of block " << u << " (connected " << connected << ")";
    }
    why = s.str();
    return why.empty();
}

//! The trees' px over configuration fg: records what it reads.
struct RecordingPixels
{
    explicit RecordingPixels(unsigned configuration) : fg(configuration) {}

    unsigned fg;
    mutable unsigned read = 0;  //!< bit i: kMask[i] was read
    mutable int reads = 0;
    mutable std::string error;

    bool operator()(int c) const
    {
        ++reads;
        if (c < 0 || c >= dt::kConditions)
        {
            error = "condition out of range";
            return false;
        }
        for (int i = 0; i < 20; ++i)
            if (kMask[i].dy == dt::conditionDy(c) && kMask[i].dx == dt::conditionDx(c))
            {
                if (std::string("aflqt").find(kMask[i].name) != std::string::npos)
                    error = std::string("reads pixel ") + kMask[i].name;
                if ((read >> i) & 1u)
                    error = std::string("reads pixel ") + kMask[i].name + " twice";
                read |= 1u << i;
                return ((fg >> i) & 1u) != 0;
            }
        error = "condition " + std::to_string(c) + " is no pixel of the mask";
        return false;
    }
};

TEST(CUDACCA_DecisionTrees, EveryConfigurationGetsValidUnions)
{
    static_assert(dt::kActionNW == 1u && dt::kActionN == 2u && dt::kActionNE == 4u && dt::kActionW == 8u,
                  "kAction bit b is block b of blockOf");
    long long treeReads = 0, graphReads = 0;
    int failures = 0;
    for (unsigned fg = 0; fg < (1u << 20) && failures < 5; ++fg)
    {
        const RecordingPixels tree(fg), graph(fg);
        const unsigned fromTree = dt::bbdtUnions(tree);
        const unsigned fromGraph = dt::dragUnions(graph);
        std::string why;
        const struct { const char* name; const RecordingPixels& px; unsigned got; } results[2] = {
            { "bbdtUnions", tree, fromTree }, { "dragUnions", graph, fromGraph } };
        for (const auto& r : results)
        {
            if (!r.px.error.empty() || !validUnions(fg, r.got, why))
            {
                ADD_FAILURE() << r.name << " on configuration 0x" << std::hex << fg << std::dec << " (bit i: pixel 'a' + i"
                              << " of a..t) returns " << r.got << ": " << (r.px.error.empty() ? why : r.px.error);
                ++failures;
            }
        }
        if (tree.reads != graph.reads)
        {
            ADD_FAILURE() << "configuration 0x" << std::hex << fg << std::dec << ": the tree reads " << tree.reads
                          << " pixels, the graph " << graph.reads;
            ++failures;
        }
        treeReads += tree.reads;
        graphReads += graph.reads;
    }
    EXPECT_EQ(treeReads, graphReads);
    std::cout << "decision trees: " << static_cast<double>(treeReads) / (1 << 20) << " pixels read per block on average"
              << std::endl;
}

}} // namespace opencv_test
