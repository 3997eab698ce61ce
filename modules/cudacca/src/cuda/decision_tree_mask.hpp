// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The conditions of the generated decision trees of CCA_C_BBDT and CCA_C_DRAG (c_bbdt_tree.hpp,
// c_drag_graph.hpp, written by scripts/decision_trees.cpp): the pixels of Grana et al.'s 2x2-block scan
// mask that the trees test, their offsets from block X's top-left pixel o, and the encoding of the
// returned unions. Host and device: the host test (test_decision_trees.cpp) includes the trees too.
//     row -2:  a b c d e f      P = {a,b,g,h} (NW), Q = {c,d,i,j} (N), R = {e,f,k,l} (NE), S = {m,n,q,r} (W),
//     row -1:  g h i j k l      X = {o,p,s,t}; columns -2 .. 3.
//     row  0:  m n o p          a, f, l, q, t are never tested (scripts/decision_trees.cpp says why).
//     row  1:  q r s t

#ifndef CUDACCA_DECISION_TREE_MASK_HPP
#define CUDACCA_DECISION_TREE_MASK_HPP

#ifdef __CUDACC__
#define CUDACCA_DT_FN __host__ __device__ __forceinline__
#else
#define CUDACCA_DT_FN inline
#endif

namespace cv { namespace cuda { namespace cudacca { namespace dt {

//! The 15 conditions, in the generator's order: px(kH) is "pixel h is foreground".
enum Condition : int { kB, kC, kD, kE, kG, kH, kI, kJ, kK, kM, kN, kO, kP, kR, kS, kConditions };

//! What the trees return: the neighbour blocks X is united with (block_connectivity.cuh's kEdge* encoding).
enum : unsigned { kActionNW = 1u, kActionN = 2u, kActionNE = 4u, kActionW = 8u };

//! Row offset of condition c's pixel from o.
constexpr CUDACCA_DT_FN int conditionDy(int c) { return c <= kE ? -2 : c <= kK ? -1 : c <= kP ? 0 : 1; }

//! Column offset of condition c's pixel from o.
constexpr CUDACCA_DT_FN int conditionDx(int c)
{
    return c <= kE ? c - kB - 1          // b c d e:   -1 .. 2
         : c <= kK ? c - kG - 2          // g h i j k: -2 .. 2
         : c <= kP ? c - kM - 2          // m n o p:   -2 .. 1
         : c - kR - 1;                   // r s:       -1 .. 0
}

}}}} // namespace cv::cuda::cudacca::dt

#endif // CUDACCA_DECISION_TREE_MASK_HPP
