// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The one list of cudacca's algorithms. The dispatch, the accuracy and fuzz suites, the perf suite and the
// top-level benchmark all derive from it. A row is
//     X(id, labeling for 4-connectivity, labeling for 8-connectivity, analysis)
// where a labeling is a namespace that defines createLabeling() (`none`: the connectivity is not supported)
// and an analysis a namespace that defines createAnalysis() (`shared`: statistics accumulated by the shared
// relabeling pass). Adding an algorithm: one .cu file, one CCAAlgorithmTypes value, one row.

#ifndef CUDACCA_ALGORITHM_LIST_HPP
#define CUDACCA_ALGORITHM_LIST_HPP

#include "opencv2/cudacca.hpp"

#define CUDACCA_ALGORITHMS(X)                            \
    X(CCA_UF,       uf,       uf,       shared)          \
    X(CCA_BKE,      none,     bke,      shared)          \
    X(CCA_BUF,      none,     buf,      shared)          \
    X(CCA_KE,       ke,       ke,       shared)          \
    X(CCA_OLE,      ole,      ole,      shared)          \
    X(CCA_RCU,      rcu,      rcu,      shared)          \
    X(CCA_HA,       ha,       ha,       shared)          \
    X(CCA_FLSL,     flsl,     flsl,     flsl)            \
    X(CCA_FLSL_CD,  flsl,     flsl,     flsl_cd)         \
    X(CCA_FLSL_OTF, flsl_otf, flsl_otf, flsl_otf)        \
    X(CCA_TMK,      ke,       bke,      tmk)             \
    /* the rest of Bolelli et al. 2024's catalog, iterative (section III-A) */ \
    /* direct (section III-B) */                   \
    X(CCA_LBUF,     lbuf,     lbuf,     shared)          \
    X(CCA_DLP,      none,     dlp,      shared)          \
    /* end of the list */

namespace cv { namespace cuda { namespace cudacca {

/** What a host program may know of a row without linking against the kernels (tests, perf, benchmark). */
struct AlgorithmRow
{
    int id;            //!< the CCAAlgorithmTypes value
    const char* name;  //!< "CCA_UF", ...
    bool connectivity4;
    bool connectivity8;

    bool supports(int connectivity) const
    {
        return connectivity == 4 ? connectivity4 : connectivity == 8 && connectivity8;
    }
    const char* shortName() const { return name + 4; } //!< "UF", ...
};

constexpr bool isNoLabeling(const char* s)
{
    return s[0] == 'n' && s[1] == 'o' && s[2] == 'n' && s[3] == 'e' && s[4] == '\0';
}

#define CUDACCA_ALGORITHM_ROW(id, labeling4, labeling8, analysis) \
    { id, #id, !isNoLabeling(#labeling4), !isNoLabeling(#labeling8) },
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
inline constexpr AlgorithmRow kDefaultEntry = { CCA_DEFAULT, "CCA_DEFAULT", true, true };

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
