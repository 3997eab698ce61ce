// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The one list of cudacca's algorithms. The dispatch, the accuracy and fuzz suites, the perf suite and the
// top-level benchmark all derive from it. A row is
//     X(id,            labeling for 4-connectivity, labeling for 8-connectivity, analysis, paths)
// where a labeling is a namespace that defines createLabeling() (`none`: the connectivity is not supported),
// an analysis a namespace that defines createAnalysis() (`shared`: statistics accumulated by the shared
// relabeling pass), and `paths` says how the algorithm's work grows with the length of the paths inside a
// component:
//   any  - it does not, or only mildly (direct algorithms; label equivalence, whose rounds jump along the
//          trees; CCA_RCU, whose line propagation also jumps along the equivalences);
//   turns - a round carries labels along whole lines and nothing else (directional propagation: DPL, 8DLS,
//          M8DLS): the rounds grow with the number of turns of the longest path, a 1-pixel spiral of an n x n
//          image takes about n of them, each a pass over the image. The large-image tests give such an
//          algorithm the long-path image only up to 2^28 pixels (doc/algorithms.md, "Long paths");
//   long - a round moves a label a bounded distance (neighbour propagation): the rounds grow with the
//          longest path, a 1-pixel spiral of an n x n image takes about n^2 / 2 of them. Correct on every
//          image, but the suites give such an algorithm long-path images (spirals, serpentines, the
//          large-image tests' paths) only up to the size that doc/algorithms.md names ("Long paths").
// Adding an algorithm: one .cu file, one CCAAlgorithmTypes value, one row.

#ifndef CUDACCA_ALGORITHM_LIST_HPP
#define CUDACCA_ALGORITHM_LIST_HPP

#include "opencv2/cudacca.hpp"

#define CUDACCA_ALGORITHMS(X)                            \
    X(CCA_UF,        uf,       uf,       shared,   any)     \
    X(CCA_BKE,       none,     bke,      shared,   any)     \
    X(CCA_BUF,       none,     buf,      shared,   any)     \
    X(CCA_KE,        ke,       ke,       shared,   any)     \
    X(CCA_OLE,       ole,      ole,      shared,   any)     \
    X(CCA_RCU,       rcu,      rcu,      shared,   any)     \
    X(CCA_HA,        ha,       ha,       shared,   any)     \
    X(CCA_FLSL,      flsl,     flsl,     flsl,     any)     \
    X(CCA_FLSL_CD,   flsl,     flsl,     flsl_cd,  any)     \
    X(CCA_FLSL_OTF,  flsl_otf, flsl_otf, flsl_otf, any)     \
    X(CCA_TMK,       ke,       bke,      tmk,      any)     \
    /* the rest of Bolelli et al. 2024's catalog, iterative (section III-A) */\
    X(CCA_NP,        np,       np,       shared,   long)    \
    X(CCA_LNP,       lnp,      lnp,      shared,   long)    \
    X(CCA_DPL,       dpl,      none,     shared,   turns)   \
    X(CCA_LE,        le,       le,       shared,   any)     \
    X(CCA_STAVA,     none,     stava,    shared,   any)     \
    X(CCA_BRB,       none,     brb,      shared,   any)     \
    X(CCA_8DLS,      none,     dls8,     shared,   turns)   \
    X(CCA_M8DLS,     none,     m8dls,    shared,   turns)   \
    X(CCA_RASMUSSEN, none,     rasmussen, shared,  long)    \
    X(CCA_BE,        none,     be,       shared,   any)     \
    /* direct (section III-B) */                            \
    X(CCA_LBUF,      lbuf,     lbuf,     shared,   any)     \
    X(CCA_ACCL,      accl,     accl,     shared,   any)     \
    X(CCA_DLP,       none,     dlp,      shared,   any)     \
    X(CCA_C_SAUF,    c_sauf,   c_sauf,   shared,   any)     \
    X(CCA_C_BBDT,    none,     c_bbdt,   shared,   any)     \
    X(CCA_C_DRAG,    none,     c_drag,   shared,   any)     \
    /* end of the list */

namespace cv { namespace cuda { namespace cudacca {

/** What a host program may know of a row without linking against the kernels (tests, perf, benchmark). */
struct AlgorithmRow
{
    int id;            //!< the CCAAlgorithmTypes value
    const char* name;  //!< "CCA_UF", ...
    bool connectivity4;
    bool connectivity8;
    bool longPathRounds; //!< `paths` is `long`: rounds grow with the longest path inside a component
    bool turnRounds;     //!< `paths` is `turns`: rounds grow with the turns of the longest path

    bool supports(int connectivity) const
    {
        return connectivity == 4 ? connectivity4 : connectivity == 8 && connectivity8;
    }
    const char* shortName() const { return name + 4; } //!< "UF", ...
};

//! Whether two C strings are equal, at compile time (the list's words: `none`, `any`, `turns`, `long`).
constexpr bool sameWord(const char* a, const char* b)
{
    return *a == *b && (*a == '\0' || sameWord(a + 1, b + 1));
}

#define CUDACCA_CHECK_PATHS(id, labeling4, labeling8, analysis, paths) \
    static_assert(sameWord(#paths, "any") || sameWord(#paths, "turns") || sameWord(#paths, "long"), \
                  #id ": paths is any, turns or long");
CUDACCA_ALGORITHMS(CUDACCA_CHECK_PATHS)
#undef CUDACCA_CHECK_PATHS

#define CUDACCA_ALGORITHM_ROW(id, labeling4, labeling8, analysis, paths) \
    { id, #id, !sameWord(#labeling4, "none"), !sameWord(#labeling8, "none"), sameWord(#paths, "long"), sameWord(#paths, "turns") },
inline constexpr AlgorithmRow kAlgorithmRows[] = { CUDACCA_ALGORITHMS(CUDACCA_ALGORITHM_ROW) };
#undef CUDACCA_ALGORITHM_ROW

inline const AlgorithmRow* findAlgorithmRow(int id)
{
    for (const AlgorithmRow& row : kAlgorithmRows)
        if (row.id == id)
            return &row;
    return nullptr;
}

/** CCA_DEFAULT as the benchmark names it: not a row (it resolves to defaultAlgorithm() below, except that
images of up to kOneLaunchMaxPixels take its one-launch path, one_launch.hpp), measured as its own entry. */
inline constexpr AlgorithmRow kDefaultEntry = { CCA_DEFAULT, "CCA_DEFAULT", true, true, false, false };

/** The algorithm argument without its flag (CCA_ORDER_CCL_DEFAULT). */
inline int algorithmWithoutFlags(int algorithm) { return algorithm & ~CCA_ORDER_CCL_DEFAULT; }

/** Does the call number its components as cv::CCL_DEFAULT does, and is that not SAUF's order? (With
4-connectivity CCL_DEFAULT is SAUF: the flag changes nothing.) */
inline bool renumbersToCclDefault(int algorithm, int connectivity)
{
    return (algorithm & CCA_ORDER_CCL_DEFAULT) != 0 && connectivity == 8;
}

/** CCA_DEFAULT resolves to this algorithm. */
inline int defaultAlgorithm(int /*connectivity*/) { return CCA_FLSL_CD; }

}}} // namespace cv::cuda::cudacca

#endif
