// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Pinned Mats (pinned_mats.hpp): the allocator, its pool of idle blocks, and the free function's use of them.

#include "precomp.hpp"
#include "pinned_mats.hpp"
#include "allocation_count.hpp"

#include <algorithm>
#include <climits>
#include <mutex>
#include <utility>
#include <vector>

namespace cv { namespace cuda { namespace cudacca {

namespace {

/** Mapped pinned blocks for Mats, at most kMaxLive of them alive (idle or held by Mats) and kMaxLiveBytes: a
block a Mat lets go is kept for the next Mat (cudaHostAlloc costs tens to hundreds of microseconds, cudaFreeHost
may synchronize the device), which takes the smallest idle block that holds it. Past the limits canTake() says no
and the free function copies into an ordinary Mat instead, so a caller who keeps every frame's statistics holds
at most kMaxLive blocks of pinned memory, and nothing is allocated and freed call after call. */
class PinnedMatAllocator final : public MatAllocator
{
public:
    UMatData* allocate(int dims, const int* sizes, int type, void* data0, size_t* step, AccessFlag,
                       UMatUsageFlags) const override
    {
        size_t total = CV_ELEM_SIZE(type);
        for (int i = dims - 1; i >= 0; i--)
        {
            if (step)
            {
                if (data0 && step[i] != Mat::AUTO_STEP)
                {
                    CV_Assert(total <= step[i]);
                    total = step[i];
                }
                else
                    step[i] = total;
            }
            total *= sizes[i];
        }
        UMatData* u = new UMatData(this);
        u->size = total;
        if (data0)
        {
            u->data = u->origdata = static_cast<uchar*>(data0);
            u->flags |= UMatData::USER_ALLOCATED;
            return u;
        }
        try
        {
            u->data = u->origdata = take(u->size); // throws past the limits: Mat::create then takes OpenCV's allocator
        }
        catch (...)
        {
            delete u;
            throw;
        }
        return u;
    }

    bool allocate(UMatData* u, AccessFlag, UMatUsageFlags) const override { return u != nullptr; }

    void deallocate(UMatData* u) const override
    {
        if (!u)
            return;
        CV_Assert(u->urefcount == 0);
        CV_Assert(u->refcount == 0);
        if (!(u->flags & UMatData::USER_ALLOCATED))
        {
            std::lock_guard<std::mutex> lock(mutex_);
            idle_.push_back({ u->origdata, u->size });
        }
        delete u;
    }

    /** Whether take(bytes) would give a block now (an idle one, or a new one within the limits). */
    bool canTake(size_t bytes) const
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const Block& b : idle_)
            if (b.bytes >= bytes)
                return true;
        return withinLimits(bytes);
    }

    void releaseIdle() const
    {
        std::vector<Block> idle;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            idle.swap(idle_);
            for (const Block& b : idle)
            {
                --live_;
                liveBytes_ -= b.bytes;
            }
        }
        for (const Block& b : idle)
            cudaFreeHost(b.data);
    }

private:
    struct Block
    {
        uchar* data;
        size_t bytes;
    };
    static constexpr size_t kMaxLive = 8;
    static constexpr size_t kMaxLiveBytes = size_t(256) << 20;

    /** A new block of `bytes` keeps within the limits, counting the idle blocks that a new one would replace. */
    bool withinLimits(size_t bytes) const
    {
        size_t idleBytes = 0;
        for (const Block& b : idle_)
            idleBytes += b.bytes;
        return live_ - idle_.size() < kMaxLive && liveBytes_ - idleBytes + bytes <= kMaxLiveBytes;
    }

    /** A block of at least `bytes` (set to the block's size): the smallest idle one that holds it, else a new one,
    for which idle blocks (all too small) are freed as far as the limits need. Throws past the limits. */
    uchar* take(size_t& bytes) const
    {
        static const IdleAtExit idleAtExit; // made after CUDA's own state, so destroyed before it
        std::vector<Block> freed;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            auto best = idle_.end();
            for (auto it = idle_.begin(); it != idle_.end(); ++it)
                if (it->bytes >= bytes && (best == idle_.end() || it->bytes < best->bytes))
                    best = it;
            if (best != idle_.end())
            {
                uchar* p = best->data;
                bytes = best->bytes;
                idle_.erase(best);
                return p;
            }
            if (!withinLimits(bytes))
                CV_Error(Error::StsNoMem, "cudacca: no more pinned Mats (kMaxLive blocks alive)");
            while (!idle_.empty() && (live_ >= kMaxLive || liveBytes_ + bytes > kMaxLiveBytes))
            {
                freed.push_back(idle_.front());
                --live_;
                liveBytes_ -= idle_.front().bytes;
                idle_.erase(idle_.begin());
            }
            ++live_;
            liveBytes_ += bytes;
        }
        for (const Block& b : freed)
            cudaFreeHost(b.data);
        void* p = nullptr;
        countPinnedAllocation();
        const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable | cudaHostAllocMapped);
        if (e != cudaSuccess)
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --live_;
            liveBytes_ -= bytes;
        }
        checkCuda(e, "cudaHostAlloc (pinned Mat)");
        return static_cast<uchar*>(p);
    }

    /** Frees the idle blocks when the process ends (a block a Mat still holds then is the caller's). */
    struct IdleAtExit
    {
        ~IdleAtExit() { releaseIdlePinnedMats(); }
    };

    mutable std::mutex mutex_;
    mutable std::vector<Block> idle_;
    mutable size_t live_ = 0;      //!< blocks allocated and not freed: idle or held by Mats
    mutable size_t liveBytes_ = 0;
};

PinnedMatAllocator& allocator()
{
    static PinnedMatAllocator* a = new PinnedMatAllocator(); // never destroyed: Mats may outlive static destruction
    return *a;
}

/** The output's Mat, when it is one this file may take: a plain Mat, empty without an allocator of its own (or
with ours: a pinned Mat released), or already holding pinnedMatAllocator()'s memory. */
Mat* takeableMat(OutputArray out)
{
    if (out.kind() != _InputArray::MAT || out.fixedSize() || out.fixedType())
        return nullptr;
    Mat& m = out.getMatRef();
    if (pinnedRows(m) > 0 || (m.empty() && !m.u && (!m.allocator || m.allocator == &allocator())))
        return &m;
    return nullptr;
}

} // namespace

MatAllocator* pinnedMatAllocator() { return &allocator(); }

void releaseIdlePinnedMats() noexcept
{
    try
    {
        allocator().releaseIdle();
    }
    catch (...)
    {
    }
}

int pinnedRows(const Mat& m)
{
    if (!m.u || m.u->currAllocator != &allocator() || m.dims != 2 || m.data != m.datastart || m.step[0] == 0)
        return 0;
    return static_cast<int>(std::min<size_t>(INT_MAX, static_cast<size_t>(m.datalimit - m.datastart) / m.step[0]));
}

int pinnedMatRows(const Mat& m) { return pinnedRows(m); }

bool PinnedOutput::open(OutputArray out, int needRows, int allocRows, int cols, int type, bool inPlace)
{
    CV_Assert(needRows > 0 && allocRows >= needRows);
    *this = PinnedOutput();
    Mat* m = takeableMat(out);
    if (!m)
        return false;
    // In place: the caller's Mat alone holds the memory (no other header sees it change), packed rows of this type.
    if (inPlace && pinnedRows(*m) >= needRows && m->u->refcount == 1 && m->cols == cols && m->type() == type &&
        m->step[0] == static_cast<size_t>(cols) * CV_ELEM_SIZE(type))
    {
        data_ = m->data;
        rows_ = pinnedRows(*m);
        inPlace_ = true;
        return true;
    }
    if (!allocator().canTake(static_cast<size_t>(allocRows) * cols * CV_ELEM_SIZE(type)))
        return false;
    Mat b;
    b.allocator = &allocator();
    b.create(allocRows, cols, type);
    if (pinnedRows(b) < allocRows) // Mat::create fell back to the default allocator (cudaHostAlloc failed)
        return false;
    block_ = b;
    data_ = b.data;
    rows_ = allocRows;
    inPlace_ = false;
    return true;
}

Mat pinnedStagingMat(int rows, int cols, int type)
{
    if (!allocator().canTake(static_cast<size_t>(rows) * cols * CV_ELEM_SIZE(type)))
        return Mat();
    Mat b;
    b.allocator = &allocator();
    b.create(rows, cols, type);
    return pinnedRows(b) >= rows ? b : Mat(); // (Mat::create fell back to the default allocator)
}

void PinnedOutput::deliver(OutputArray out, int rows)
{
    CV_Assert(data_ && rows > 0 && rows <= rows_);
    Mat& m = out.getMatRef();
    if (inPlace_)
        m.resize(static_cast<size_t>(rows)); // within its memory (rows <= pinnedRows(m)): nothing moves
    else if (!m.empty() && m.rows == rows && m.cols == block_.cols && m.type() == block_.type())
        block_.rowRange(0, rows).copyTo(m);
    else
    {
        block_.resize(static_cast<size_t>(rows));
        m = block_;
    }
    block_.release();
    data_ = nullptr;
}

}}} // namespace cv::cuda::cudacca
