/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-vCPU record buffers: the hot path. A vCPU thread appends records to
 * the chunk it owns with vbuf_reserve(); a full chunk goes to the writer
 * thread and a free one takes its place. The fast path takes no lock,
 * makes no call and no syscall: a compare and an add. Records are opaque
 * here (id and size only).
 */
#ifndef QTRACE_PLUGIN_VBUF_H
#define QTRACE_PLUGIN_VBUF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* u64 words of a chunk's event bits: QTRACE_MAX_EVENTS bits. */
#define CHUNK_EVENT_WORDS 16

/*
 * A host clock stamp (timeline=on) takes at most this many bytes of a
 * chunk: a 32-byte record, in a staged stream behind its escape word and
 * tag. Every chunk has room for two past its capacity (VBUF_TAIL_ROOM),
 * so that the stamp that ends it, and one of a pause that did not fit,
 * are written whatever the records left.
 */
#define VBUF_STAMP_MAX 48u
#define VBUF_TAIL_ROOM (2 * VBUF_STAMP_MAX)

/* A chunk of records of one vCPU stream, owned by one thread at a time. */
struct chunk {
    struct chunk *next;         /* queue link (writer) */
    uint32_t vcpu;              /* vCPU index */
    uint32_t stream;            /* stream id, unique per vCPU life */
    uint32_t len;               /* bytes of records */
    uint32_t cap;               /* bytes available in data */
    uint16_t flags;             /* payload encoding, chunk header flags */
    uint32_t n_records;         /* records it holds (a run counts each) */
    uint64_t insns;             /* vCPU's instructions at hand-over */
    uint64_t t0;                /* ... when its records began (pack.h) */
    uint32_t gen;               /* output generation (vbuf_gen) at attach */
    bool cut;                   /* a snapshot trigger's: the snapshot of
                                   its stream ends with it (ring.h) */
    bool has_events;            /* events is set (a packed chunk) */
    uint64_t events[CHUNK_EVENT_WORDS]; /* bit id: holds event id */
    uint8_t data[] __attribute__((aligned(8)));  /* records */
};

struct pack_state;

/*
 * Who may touch a vbuf besides its vCPU: while the vCPU is PARKED (in a
 * system call, or idle in system mode) the writer thread may take it
 * (TAKEN) to hand its partial chunk over, and gives it back PARKED.
 */
/* Why vbuf_cross calls on_cross. */
enum vbuf_cross {
    VBUF_CROSS_OFF,             /* writing stops: last record of a run */
    VBUF_CROSS_ON,              /* writing resumes in a new chunk */
    VBUF_CROSS_FILE,            /* a new output file: a new chunk */
};

enum vbuf_park {
    VBUF_RUNNING,
    VBUF_PARKED,
    VBUF_TAKEN,
};

struct vbuf {
    uint8_t *pos;               /* next free byte in chunk->data */
    /*
     * chunk->data + cap: the limit the fast path compares against. The
     * writer thread lowers it (vbuf_ask_flush) to make the next record
     * take the slow path, which hands the partial chunk over.
     */
    uint8_t *end;
    struct chunk *chunk;        /* NULL before start and after stop */
    uint32_t vcpu;
    uint32_t stream;
    uint16_t flags;             /* encoding of this stream's chunks */
    bool lossy;                 /* drop a full chunk rather than wait */
    uint32_t n_records;         /* records in the current chunk so far */
    struct pack_state *pack;    /* packed encoding (pack.h), NULL: raw */
    const uint64_t *icount;     /* the vCPU's instruction count, or NULL */
    /*
     * Called after a drop, with the chunk emptied, to mark the gap; size
     * is the reservation that found no room (a packed stream's block is
     * its only 4-byte one).
     */
    void (*on_drop)(struct vbuf *vb, uint64_t lost, uint32_t size);
    atomic_uint handovers;      /* chunks handed over (writer reads it) */
    atomic_int park;            /* enum vbuf_park */
    bool watched;               /* known to the flush timer */
    /*
     * Runtime control (ctl/): the vbuf_state this vCPU last crossed to
     * (written by the vCPU, read by the writer thread), whether its
     * records are discarded (trace-file off), whether its stream holds
     * blocks (then it crosses only at a block start, see vbuf_cross), and
     * what crossing writes into the stream.
     */
    atomic_uint state;
    bool stopped;               /* vbuf_stop: no chunk until vbuf_start */
    bool off;
    bool blocks;
    /*
     * timeline=on: vbuf.c writes a clock record (stamp.h) where a chunk
     * begins and ends and where a pause ends, on the vCPU's thread, or
     * on the writer thread for a parked vCPU whose chunk it takes.
     */
    bool stamps;
    bool pause_pending;         /* parked at park_ns, not stamped yet */
    uint64_t discarded;         /* records given up while off */
    uint64_t file_icount;       /* *icount where the current file began */
    void (*on_cross)(struct vbuf *vb, enum vbuf_cross how, uint64_t time);
    /*
     * ring=: called when the vCPU takes a fresh chunk at its stream's
     * start or on its slow path, before the record of size bytes that
     * made it take one; NULL: nothing to do (ring-restart.h).
     */
    void (*on_chunk)(struct vbuf *vb, uint32_t size);
    uint64_t park_ns;           /* host clock at vbuf_park (stamps only) */
};

/*
 * The output state every vCPU follows: generation << 1 | writing on.
 * Changed by runtime control (vbuf_state_set); each vCPU notices the
 * change on its slow path only, and crosses there (vbuf_cross).
 */
extern atomic_uint vbuf_state;

static inline uint32_t vbuf_state_gen(uint32_t state)
{
    return state >> 1;
}

/* True when vb has not yet followed a change of vbuf_state. */
static inline bool vbuf_must_cross(const struct vbuf *vb)
{
    return atomic_load_explicit(&vb->state, memory_order_relaxed) !=
           atomic_load_explicit(&vbuf_state, memory_order_relaxed);
}

/*
 * Runtime control, any thread: a new generation, writing on or off.
 * Returns the new generation. The vCPUs follow on their slow paths.
 */
uint32_t vbuf_state_set(bool on);

/* Whether records are written now (the last vbuf_state_set). */
bool vbuf_state_is_on(void);

/*
 * vCPU thread: follow vbuf_state. The chunk filled so far stays with
 * the old generation; writing on, a new chunk starts the new one, and
 * on_cross writes what the stream needs there (time: when the next
 * block starts). Writing off, on_cross marks the switch and the vCPU
 * then holds no chunk: its records are discarded until writing is on.
 */
void vbuf_cross(struct vbuf *vb, uint64_t time);

/*
 * Take a first chunk for a new stream whose chunks are encoded as flags
 * says (0 raw records, QTRACE_CHUNK_PACKED); may wait for a free chunk.
 */
void vbuf_start(struct vbuf *vb, uint32_t vcpu, uint32_t stream,
                uint16_t flags);

/* Hand the current chunk (even partly filled) to the writer and detach. */
void vbuf_stop(struct vbuf *vb);

/*
 * vCPU thread: hand the current chunk over, however full, marked as
 * cut (a snapshot trigger's), and go on in a fresh one.
 */
void vbuf_handover(struct vbuf *vb);

/*
 * Writer thread, for a vCPU that has kept its chunk too long: its next
 * record takes the slow path, which hands the chunk over however full.
 * Costs the vCPU nothing until then (no flag to test on the fast path).
 */
static inline void vbuf_ask_flush(struct vbuf *vb)
{
    /* Below any chunk: every reservation compares greater. */
    __atomic_store_n(&vb->end, (uint8_t *)0, __ATOMIC_RELAXED);
}

/* CLOCK_MONOTONIC in nanoseconds (the vDSO's: no system call). */
uint64_t vbuf_clock_ns(void);

/*
 * vCPU thread: from now until vbuf_unpark it records nothing. With
 * stamps, when it stopped is kept for the stamp of the pause.
 */
static inline void vbuf_park(struct vbuf *vb)
{
    if (vb->stamps) {
        vb->park_ns = vbuf_clock_ns();
        vb->pause_pending = true;
    }
    atomic_store_explicit(&vb->park, VBUF_PARKED, memory_order_release);
}

/*
 * vCPU thread (or the exit path, for any vCPU): back to recording; waits
 * while the writer thread holds the vbuf (a few microseconds). With
 * stamps, the pause gets its stamp in the vCPU's chunk.
 */
void vbuf_unpark(struct vbuf *vb);

/*
 * Writer thread: if vb's vCPU is parked, hand its partial chunk over and
 * return true; false when it runs (vbuf_ask_flush is the way then).
 */
bool vbuf_flush_parked(struct vbuf *vb);

/*
 * Called first on every slow path, on the vCPU's thread (NULL: none):
 * runtime control's way to have a recording vCPU do something soon
 * (with vbuf_ask_flush). Set at install.
 */
extern void (*vbuf_slow_hook)(void);

/* Out of line: submit the full chunk and continue in a new one. */
void *vbuf_reserve_slow(struct vbuf *vb, uint32_t size);

/*
 * Space for one record of size bytes (a multiple of 8, at most the chunk
 * size). Never NULL: when tracing has stopped the record goes to a
 * scratch area and is counted as lost.
 */
static inline void *vbuf_reserve(struct vbuf *vb, uint32_t size)
{
    uint8_t *p = vb->pos;

    if (__builtin_expect(p + size > vb->end, 0)) {
        return vbuf_reserve_slow(vb, size);
    }
    vb->pos = p + size;
    return p;
}

/* Count records as they are added (the writer sums them per chunk). */
static inline void vbuf_count(struct vbuf *vb, uint32_t n)
{
    vb->n_records += n;
}

#endif /* QTRACE_PLUGIN_VBUF_H */
