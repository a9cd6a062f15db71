// Properties of the index's lock table, dispatch and collection (FpIndex
// with two lookup FSMs). The memory ports, the command stream, rsp$ready,
// bloom_enable and fsm_limit_log2 are left to the environment: the lock
// holds whatever memory answers and whenever. Only the first clock is
// constrained (reset high). [[name]] is an internal name of the flattened
// design.
reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);

// Each FSM's state, decoded one-hot from its code (the order of `State` in
// fsm.rs: bit 0 IDLE, 1 LOCK, 13 DONE, 15 LOCK_SETTLE),
// the bucket it locks, its command's sequence number and its held response.
wire [15:0] f_state0 = 16'h1 << [[fsms$0.state$q]];
wire [15:0] f_state1 = 16'h1 << [[fsms$1.state$q]];
wire f_active0 = [[fsms$0$active]];
wire f_active1 = [[fsms$1$active]];
wire [12:0] f_bucket0 = [[fsms$0$bucket]];
wire [12:0] f_bucket1 = [[fsms$1$bucket]];
wire f_blocked0 = [[fsms$0$blocked]];
wire f_blocked1 = [[fsms$1$blocked]];
wire f_busy0 = !f_state0[0];
wire f_busy1 = !f_state1[0];
// Waiting for the lock (LOCK_SETTLE, LOCK) or holding it (every later state
// until DONE: its last write is in WRITE_META), from the state alone.
localparam F_HOLDING = 16'h5ffc;
wire f_waits0 = f_state0[1] || f_state0[15];
wire f_waits1 = f_state1[1] || f_state1[15];
wire f_holds0 = (f_state0 & F_HOLDING) != 0;
wire f_holds1 = (f_state1 & F_HOLDING) != 0;
wire f_held0 = [[fsms$0.held_valid$q]];
wire f_held1 = [[fsms$1.held_valid$q]];
// Ages: sequence numbers counted from the oldest response not collected.
wire [5:0] f_collect = [[collect_seq$q]];
wire [5:0] f_outstanding = [[dispatch_seq$q]] - f_collect;
wire [5:0] f_pos0 = [[fsms$0.seq_r$q]] - f_collect;
wire [5:0] f_pos1 = [[fsms$1.seq_r$q]] - f_collect;
wire [5:0] f_hpos0 = [[fsms$0.held_seq_r$q]] - f_collect;
wire [5:0] f_hpos1 = [[fsms$1.held_seq_r$q]] - f_collect;

// The lock table's promises.
// No two FSMs ever hold one bucket.
wire ok_exclusive = !(f_holds0 && f_holds1 && f_bucket0 == f_bucket1);
// What the lock table sees as active is exactly waiting or holding.
wire ok_active = f_active0 == (f_waits0 || f_holds0) && f_active1 == (f_waits1 || f_holds1);
// Commands on one bucket run in command order: the holder of a bucket is
// older than every other active command on it.
wire ok_holder_oldest = (!(f_holds0 && f_active1 && f_bucket0 == f_bucket1) || f_pos0 < f_pos1)
    && (!(f_holds1 && f_active0 && f_bucket0 == f_bucket1) || f_pos1 < f_pos0);
// A release frees exactly its own bucket: a waiting FSM is unblocked only
// on the clock after the other FSM, on its bucket, stopped being active.
reg f_was_blocked0 = 1'b0, f_was_blocked1 = 1'b0, f_was_active0 = 1'b0, f_was_active1 = 1'b0;
reg [12:0] f_was_bucket0 = 0, f_was_bucket1 = 0;
reg f_was_reset = 1'b1;
always @(posedge clock) begin
    f_was_blocked0 <= f_blocked0;
    f_was_blocked1 <= f_blocked1;
    f_was_active0 <= f_active0;
    f_was_active1 <= f_active1;
    f_was_bucket0 <= f_bucket0;
    f_was_bucket1 <= f_bucket1;
    f_was_reset <= reset;
end
wire ok_release = f_was_reset
    || !(f_was_blocked1 && !f_blocked1 && f_active1 && f_was_active1 && f_waits1)
        || (f_was_active0 && !f_active0 && f_was_bucket0 == f_bucket1)
    && (!(f_was_blocked0 && !f_blocked0 && f_active0 && f_was_active0 && f_waits0)
        || (f_was_active1 && !f_active1 && f_was_bucket1 == f_bucket0));
// A blocked FSM is blocked by an older active command on its bucket.
wire ok_blocked_by_older = (!(f_waits0 && f_blocked0) || (f_active1 && f_bucket1 == f_bucket0 && f_pos1 < f_pos0))
    && (!(f_waits1 && f_blocked1) || (f_active0 && f_bucket0 == f_bucket1 && f_pos0 < f_pos1));

// Invariants of dispatch and collection (they make the above inductive).
// Every command dispatched and not collected is in an FSM or a held slot,
// and their sequence numbers are distinct and in range, a held response
// older than its FSM's next command.
wire ok_accounting = f_outstanding == f_busy0 + f_busy1 + f_held0 + f_held1
    && (!f_busy0 || f_pos0 < f_outstanding) && (!f_busy1 || f_pos1 < f_outstanding)
    && (!f_held0 || f_hpos0 < f_outstanding) && (!f_held1 || f_hpos1 < f_outstanding)
    && (!(f_busy0 && f_busy1) || f_pos0 != f_pos1)
    && (!(f_held0 && f_held1) || f_hpos0 != f_hpos1)
    && (!(f_busy0 && f_held0) || f_hpos0 < f_pos0) && (!(f_busy1 && f_held1) || f_hpos1 < f_pos1)
    && (!(f_busy0 && f_held1) || f_pos0 != f_hpos1) && (!(f_busy1 && f_held0) || f_pos1 != f_hpos0);
// An FSM in LOCK whose registered verdict is "clear" is older than every
// other active command on its bucket: it may go on.
wire ok_lock_clear = (!(f_state0[1] && ![[fsms$0.blocked_r$q]] && f_active1 && f_bucket0 == f_bucket1) || f_pos0 < f_pos1)
    && (!(f_state1[1] && ![[fsms$1.blocked_r$q]] && f_active0 && f_bucket0 == f_bucket1) || f_pos1 < f_pos0);

always @* if (f_past_valid && !reset) begin
    assert(ok_exclusive);
    assert(ok_active);
    assert(ok_holder_oldest);
    assert(ok_release);
    assert(ok_blocked_by_older);
    assert(ok_accounting);
    assert(ok_lock_clear);
end

// The interesting states are reachable.
wire f_running = f_past_valid && !reset;
reg f_waited1 = 1'b0;
always @(posedge clock) if (f_running && f_state1[1] && f_blocked1) f_waited1 <= 1'b1;
wire cover_contended = f_running && f_active0 && f_active1 && f_bucket0 == f_bucket1 && f_blocked1;
wire cover_waited_then_holds = f_running && f_waited1 && f_holds1;
wire cover_both_hold = f_running && f_holds0 && f_holds1;

`ifdef DITTO_WITNESS
// Witnesses are searched for with a narrow environment (the proof has the
// whole one): fingerprints that differ only in their bucket, empty buckets
// (no walk), both FSMs at work.
always @* assume(cmd$fp[159:2] == 0 && tbl$rsp_rdata == 0 && fp$rsp_rdata == 0 && fsm_limit_log2 == 1);
`endif
