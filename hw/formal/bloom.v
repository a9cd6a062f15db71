// Properties of the Bloom filter of one lookup FSM (LookupFsm alone). Every
// input is left to the environment: commands, the lock verdict, grants,
// memory responses (any data, any time) and bloom_enable. Only the first
// clock is constrained (reset high). The properties are relative to what
// memory answers: the filter a command reads, and the ways its walk reads.
// Together with a memory that keeps what it is told, they give "no false
// negative": a key's bits are set by the write that inserts it, stay set
// until a walk reads every way and rebuilds the filter from them, and a
// lookup skips the walk only when one of its bits is clear.
// [[name]] is an internal name of the flattened design.
reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);

// The filter bits of a signature (the golden model's bloom_bits: k = 3).
function [31:0] f_bits(input [11:0] sig);
    f_bits = (32'h1 << sig[4:0]) | (32'h1 << sig[9:5]) | (32'h1 << (sig[11:7] ^ sig[4:0]));
endfunction

// The state, decoded one-hot from its code (the order of `State` in
// fsm.rs): 0 IDLE, 1 LOCK, 2 META_REQ, 3 META_WAIT, 4 CLASSIFY, 5 WALK,
// 6 VERIFY_REQ, 7 VERIFY_WAIT, 8 HIT, 9 MISS, 10 WRITE_WAY, 11 WRITE_FP,
// 12 WRITE_META, 13 DONE, 14 HIT_DECIDE, 15 LOCK_SETTLE. Every one of the
// sixteen codes is a state.
wire [15:0] f_state = 16'h1 << [[state$q]];
wire [2:0] f_op = [[op$q]];
// The command's key: its signature is fingerprint bits 16..27.
wire [31:0] f_key = f_bits([[fp$q]][27:16]);
wire f_walked = [[walked$q]];
// After the metadata read (CLASSIFY up to WRITE_META, and HIT_DECIDE).
wire f_after_meta = (f_state & 16'h5ff0) != 0;
// After the choice to walk or not (WALK onwards).
wire f_after_classify = (f_state & 16'h5fe0) != 0;
wire f_writing = (f_state & 16'h1c00) != 0;
// A metadata write the memory accepts.
wire f_meta_write = f_state[12] && [[write_meta$q]] && tbl_req_valid && tbl_req_write && tbl_grant;

// What the FSM was told, and what it chose, as the environment saw it.
reg [31:0] f_meta_bloom = 0;
reg [7:0] f_meta_occ = 0;
reg [31:0] f_walk_bits = 0;
reg f_decided = 1'b0, f_should_walk = 1'b0;
reg f_via_miss = 1'b0, f_via_hit = 1'b0, f_en_at_miss = 1'b0;
always @(posedge clock) begin
    if (f_state[3] && tbl_rsp_valid) begin
        f_meta_bloom <= tbl_rsp_rdata[31:0];
        f_meta_occ <= tbl_rsp_rdata[39:32];
    end
    if (f_state[4]) begin
        f_walk_bits <= 0;
        f_decided <= f_op != 3;
        // Walk unless filters are on and one of the key's bits is clear.
        f_should_walk <= !bloom_enable || (f_meta_bloom & f_key) == f_key;
    end
    if (f_state[5] && tbl_rsp_valid) f_walk_bits <= f_walk_bits | f_bits(tbl_rsp_rdata[11:0]);
    if (f_state[9]) begin
        f_via_miss <= 1'b1;
        f_en_at_miss <= bloom_enable;
    end
    if (f_state[14]) f_via_hit <= 1'b1;
    if (f_state[15] || reset) begin
        f_decided <= 1'b0;
        f_via_miss <= 1'b0;
        f_via_hit <= 1'b0;
    end
end
// A miss that allocates a way adds its key.
wire f_allocates = (f_op == 0 || f_op == 4) && f_meta_occ != 8'hff;
// The filter a miss writes: after a walk with filters on, exactly the bits
// of the ways read (the rebuild), else the filter read; plus the key when
// a way is allocated.
wire [31:0] f_miss_filter = ((f_walked && f_en_at_miss) ? f_walk_bits : f_meta_bloom) | (f_allocates ? f_key : 32'h0);

// The promises.
// No false negative from the choice: a lookup or insert walks the bucket
// whenever the filter read has every one of the key's bits, or filters are
// off; it skips only when a bit is clear.
wire ok_walks_on_maybe = !(f_after_classify && f_decided) || f_walked == f_should_walk;
// A miss writes the filter back exactly: the rebuild is the ways read (so
// stale bits go), with the new key's bits if it allocates.
wire ok_miss_filter = !(f_meta_write && f_via_miss) || tbl_req_wdata[31:0] == f_miss_filter;
// A walk with filters on that misses always writes its rebuild back.
wire ok_rebuild_written = !(f_state[12] && f_via_miss && f_walked && f_en_at_miss) || [[write_meta$q]];
// A removal keeps the filter as read (the bits stay until a rebuild).
wire ok_removal_keeps = !(f_meta_write && f_via_hit) || tbl_req_wdata[31:0] == f_meta_bloom;

// Invariants of the FSM (they make the above inductive).
wire ok_key_registered = (f_state[0] || f_state[15]) || [[key_bits_r$q]] == f_key;
wire ok_meta_registered = !f_after_meta || ([[bloom$q]] == f_meta_bloom && [[occupied$q]] == f_meta_occ);
wire ok_covers_registered = !f_state[4] || [[bloom_covers$q]] == ((f_meta_bloom & f_key) == f_key);
wire ok_rebuilt_registered = !f_after_classify || [[rebuilt$q]] == f_walk_bits;
wire ok_decided = !f_after_classify || f_decided == (f_op != 3);
// Which way a command reached the writes: through MISS or HIT_DECIDE,
// never both, and neither before it gets there.
wire ok_path = !(f_via_miss && f_via_hit) && (!f_writing || f_via_miss != f_via_hit)
    && ((f_state & 16'h43fe) == 0 || (!f_via_miss && !f_via_hit));
wire ok_miss_word = !(f_writing && f_via_miss && [[write_meta$q]]) || [[meta_word$q]][31:0] == f_miss_filter;
wire ok_removal_word = !(f_writing && f_via_hit && [[write_meta$q]]) || [[meta_word$q]][31:0] == f_meta_bloom;
wire ok_miss_flag = !(f_writing && f_via_miss && f_walked && f_en_at_miss) || [[write_meta$q]];
// Only a walk leads to WALK, VERIFY, HIT and HIT_DECIDE (but DEREF_ENTRY's read).
wire ok_walk_skipped = f_walked || (f_state & 16'h41e0) == 0 || f_op == 3;
// LOCK_SETTLE clears the walk and write flags; only CLASSIFY sets the
// first, only MISS and HIT_DECIDE the second.
wire ok_flags_clear = ((f_state & 16'h001e) == 0 || !f_walked) && ((f_state & 16'h43fe) == 0 || ![[write_meta$q]]);

always @* if (f_past_valid && !reset) begin
    assert(ok_walks_on_maybe);
    assert(ok_miss_filter);
    assert(ok_rebuild_written);
    assert(ok_removal_keeps);
    assert(ok_key_registered);
    assert(ok_meta_registered);
    assert(ok_covers_registered);
    assert(ok_rebuilt_registered);
    assert(ok_decided);
    assert(ok_path);
    assert(ok_miss_word);
    assert(ok_removal_word);
    assert(ok_miss_flag);
    assert(ok_walk_skipped);
    assert(ok_flags_clear);
end

// The interesting states are reachable.
wire f_running = f_past_valid && !reset;
// A lookup answered by the filter alone.
wire cover_skip = f_running && f_state[9] && f_decided && !f_walked && bloom_enable;
// A rebuild that clears a stale bit and adds an inserted key to the bits
// of a way read.
wire cover_rebuild_clears = f_running && f_meta_write && f_via_miss && f_walked && f_en_at_miss
    && (f_meta_bloom & ~tbl_req_wdata[31:0]) != 0 && f_allocates && f_walk_bits != 0;
// A removal that writes the filter back.
wire cover_removal = f_running && f_meta_write && f_via_hit;

`ifdef DITTO_WITNESS
// Witnesses: one bucket (mask 0), the lock always clear, grants at once.
always @* assume(bucket_mask == 0 && !blocked && tbl_grant && fp_grant);
`endif
