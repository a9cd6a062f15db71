// The lock table's waiting bound (FpIndex with two lookup FSMs), appended
// to lock_table.v, whose names and invariants it uses: every command that
// waits for its bucket's lock is granted it within F_WAIT clocks.
//
// The bound needs a memory that answers. The environment is held to the
// memory ports' contract (one response per read, tagged with its FSM, at
// least one clock after the read was accepted) and to two bounds that any
// real memory meets:
// - a port accepts a request within F_READY clocks of its being asked;
// - while an FSM has reads outstanding on a port, one of them is answered
//   within F_LATENCY clocks (of the read, or of the last answer).
// The command stream, rsp$ready and the data memory answers stay free.
//
// Why it holds: a waiting FSM asks nothing of memory, so the older command
// it waits for has both ports to itself, and from each of its states a
// bound on the clocks it still holds the lock follows (f_rem*, a ranking
// function: it falls by at least one every clock, so it proves progress).
// Parameters: F_READY, F_LATENCY (at least 1 each), and F_WAIT, the bound
// claimed (`ditto_hw::formal::lock_wait_bound`): below 3 + F_HOLD + 2 (the
// older command's LOCK_SETTLE and LOCK, its hold, the two clocks the
// registered verdict takes) the budget fails.

// The environment's state, per port and FSM: reads outstanding and the
// clocks since one was last answered; and per port, the clocks it has
// refused a request.
localparam F_SLOW = (F_READY > F_LATENCY) ? F_READY : F_LATENCY;
wire f_tbl_read = tbl$req_valid && tbl$req_ready && !tbl$req_write && !reset;
wire f_fp_read = fp$req_valid && fp$req_ready && !fp$req_write && !reset;
reg [4:0] f_tbl_out0 = 0, f_tbl_out1 = 0, f_fp_out0 = 0, f_fp_out1 = 0;
reg [7:0] f_tbl_quiet0 = 0, f_tbl_quiet1 = 0, f_fp_quiet0 = 0, f_fp_quiet1 = 0;
reg [7:0] f_tbl_refused = 0, f_fp_refused = 0;
wire f_tbl_answer0 = tbl$rsp_valid && tbl$rsp_tag == 0;
wire f_tbl_answer1 = tbl$rsp_valid && tbl$rsp_tag == 1;
wire f_fp_answer0 = fp$rsp_valid && fp$rsp_tag == 0;
wire f_fp_answer1 = fp$rsp_valid && fp$rsp_tag == 1;
always @(posedge clock) begin
    if (reset) begin
        f_tbl_out0 <= 0; f_tbl_out1 <= 0; f_fp_out0 <= 0; f_fp_out1 <= 0;
    end else begin
        f_tbl_out0 <= f_tbl_out0 + (f_tbl_read && tbl$req_tag == 0) - f_tbl_answer0;
        f_tbl_out1 <= f_tbl_out1 + (f_tbl_read && tbl$req_tag == 1) - f_tbl_answer1;
        f_fp_out0 <= f_fp_out0 + (f_fp_read && fp$req_tag == 0) - f_fp_answer0;
        f_fp_out1 <= f_fp_out1 + (f_fp_read && fp$req_tag == 1) - f_fp_answer1;
    end
    f_tbl_quiet0 <= (!reset && f_tbl_out0 != 0 && !f_tbl_answer0) ? f_tbl_quiet0 + 1 : 0;
    f_tbl_quiet1 <= (!reset && f_tbl_out1 != 0 && !f_tbl_answer1) ? f_tbl_quiet1 + 1 : 0;
    f_fp_quiet0 <= (!reset && f_fp_out0 != 0 && !f_fp_answer0) ? f_fp_quiet0 + 1 : 0;
    f_fp_quiet1 <= (!reset && f_fp_out1 != 0 && !f_fp_answer1) ? f_fp_quiet1 + 1 : 0;
    f_tbl_refused <= (!reset && tbl$req_valid && !tbl$req_ready) ? f_tbl_refused + 1 : 0;
    f_fp_refused <= (!reset && fp$req_valid && !fp$req_ready) ? f_fp_refused + 1 : 0;
end
always @* if (f_past_valid && !reset) begin
    // One answer per read, to the FSM that asked.
    assume(!tbl$rsp_valid || (tbl$rsp_tag == 0 && f_tbl_out0 != 0) || (tbl$rsp_tag == 1 && f_tbl_out1 != 0));
    assume(!fp$rsp_valid || (fp$rsp_tag == 0 && f_fp_out0 != 0) || (fp$rsp_tag == 1 && f_fp_out1 != 0));
    // The bounds.
    assume(!(tbl$req_valid && !tbl$req_ready && f_tbl_refused == F_READY - 1));
    assume(!(fp$req_valid && !fp$req_ready && f_fp_refused == F_READY - 1));
    assume(!(f_tbl_out0 != 0 && !f_tbl_answer0 && f_tbl_quiet0 == F_LATENCY - 1));
    assume(!(f_tbl_out1 != 0 && !f_tbl_answer1 && f_tbl_quiet1 == F_LATENCY - 1));
    assume(!(f_fp_out0 != 0 && !f_fp_answer0 && f_fp_quiet0 == F_LATENCY - 1));
    assume(!(f_fp_out1 != 0 && !f_fp_answer1 && f_fp_quiet1 == F_LATENCY - 1));
end

function [3:0] f_pop8(input [7:0] x);
    f_pop8 = x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7];
endfunction

// Each FSM's walk and verify registers.
wire [7:0] f_issue0 = [[fsms$0.to_issue$q]];
wire [7:0] f_issue1 = [[fsms$1.to_issue$q]];
wire [7:0] f_receive0 = [[fsms$0.to_receive$q]];
wire [7:0] f_receive1 = [[fsms$1.to_receive$q]];
wire [7:0] f_cands0 = [[fsms$0.candidates$q]];
wire [7:0] f_cands1 = [[fsms$1.candidates$q]];
wire f_issue_more0 = [[fsms$0.issue_more$q]];
wire f_issue_more1 = [[fsms$1.issue_more$q]];
wire f_fp_seen0 = [[fsms$0.fp_seen$q]];
wire f_fp_seen1 = [[fsms$1.fp_seen$q]];
// Reads issued in a walk and not yet answered: the lowest ways of those
// still to receive (ways are asked and answered lowest first).
wire [7:0] f_asked0 = f_receive0 & ~f_issue0;
wire [7:0] f_asked1 = f_receive1 & ~f_issue1;
wire [7:0] f_below_issue0 = (f_issue0 & -f_issue0) - 1;
wire [7:0] f_below_issue1 = (f_issue1 & -f_issue1) - 1;

// Clocks from a state to the end of the holding states, at most, with the
// ports to itself: a verify costs a request, an answer and the registered
// compare; a walk's every request and answer at most F_SLOW clocks each.
localparam F_VERIFY = F_READY + F_LATENCY + 1;
localparam F_AFTER_HIT = 2 + 3 * F_READY;
localparam F_CLASSIFY = 2 + 16 * F_SLOW + 8 * F_VERIFY + F_AFTER_HIT;
localparam F_HOLD = F_READY + F_LATENCY + F_CLASSIFY;

// One FSM's bound, from its state, its walk and verify registers, its
// write plan and the environment's counters (its own, and the ports').
function [9:0] f_hold_left(input [15:0] state, input [7:0] issue, input [7:0] receive, input [7:0] cands,
        input issue_more, input fp_seen, input write_way, input write_fp, input write_meta,
        input [7:0] tbl_quiet, input [7:0] fp_quiet, input [7:0] tbl_refused, input [7:0] fp_refused);
    f_hold_left =
          state[2] ? F_READY - tbl_refused + F_LATENCY + F_CLASSIFY
        : state[3] ? F_LATENCY - tbl_quiet + F_CLASSIFY
        : state[4] ? F_CLASSIFY
        : state[5] ? (f_pop8(issue) + f_pop8(receive)) * F_SLOW
            - (issue_more ? tbl_refused : tbl_quiet) + 1 + f_pop8(cands | receive) * F_VERIFY + F_AFTER_HIT
        : state[6] ? F_READY - fp_refused + F_LATENCY + 1 + (f_pop8(cands) - 1) * F_VERIFY + F_AFTER_HIT
        : state[7] ? (fp_seen ? 1 : F_LATENCY - fp_quiet + 1) + (f_pop8(cands) - 1) * F_VERIFY + F_AFTER_HIT
        : state[8] ? F_AFTER_HIT
        : state[14] ? F_AFTER_HIT - 1
        : state[9] ? F_AFTER_HIT - 1
        : state[10] ? (write_way ? F_READY - tbl_refused : 1) + 2 * F_READY
        : state[11] ? (write_fp ? F_READY - fp_refused : 1) + F_READY
        : state[12] ? (write_meta ? F_READY - tbl_refused : 1)
        : 0;
endfunction
wire [9:0] f_rem0 = f_hold_left(f_state0, f_issue0, f_receive0, f_cands0, f_issue_more0, f_fp_seen0,
    [[fsms$0.write_way$q]], [[fsms$0.write_fp$q]], [[fsms$0.write_meta$q]],
    f_tbl_quiet0, f_fp_quiet0, f_tbl_refused, f_fp_refused);
wire [9:0] f_rem1 = f_hold_left(f_state1, f_issue1, f_receive1, f_cands1, f_issue_more1, f_fp_seen1,
    [[fsms$1.write_way$q]], [[fsms$1.write_fp$q]], [[fsms$1.write_meta$q]],
    f_tbl_quiet1, f_fp_quiet1, f_tbl_refused, f_fp_refused);

// Clocks a waiting FSM still waits, at most: through the older command on
// its bucket (its wait, its hold) and two clocks more; with none, two.
function [9:0] f_wait_left(input waits, input settling, input blocked_r, input older_on_bucket,
        input older_holds, input [9:0] older_rem, input older_settling, input older_blocked_r);
    f_wait_left = !waits ? 0
        : !older_on_bucket ? (settling ? 2 : blocked_r ? 2 : 1)
        : older_holds ? older_rem + 2
        : (older_settling ? 3 : older_blocked_r ? 2 : 1) + F_HOLD + 2;
endfunction
wire f_older1_on0 = f_active1 && f_bucket1 == f_bucket0 && f_pos1 < f_pos0;
wire f_older0_on1 = f_active0 && f_bucket0 == f_bucket1 && f_pos0 < f_pos1;
wire [9:0] f_to_go0 = f_wait_left(f_waits0, f_state0[15], [[fsms$0.blocked_r$q]], f_older1_on0,
    f_holds1, f_rem1, f_state1[15], [[fsms$1.blocked_r$q]]);
wire [9:0] f_to_go1 = f_wait_left(f_waits1, f_state1[15], [[fsms$1.blocked_r$q]], f_older0_on1,
    f_holds0, f_rem0, f_state0[15], [[fsms$0.blocked_r$q]]);

// Clocks each FSM has waited for its current command.
reg [9:0] f_wait_clocks0 = 0, f_wait_clocks1 = 0;
always @(posedge clock) begin
    f_wait_clocks0 <= (!reset && f_waits0) ? f_wait_clocks0 + 1 : 0;
    f_wait_clocks1 <= (!reset && f_waits1) ? f_wait_clocks1 + 1 : 0;
end

// The promise: no command waits for its lock more than F_WAIT clocks.
wire ok_wait_bound = f_wait_clocks0 <= F_WAIT && f_wait_clocks1 <= F_WAIT;
// Why: what a waiting FSM still waits falls every clock it waits (a
// ranking function), so a stalled wait fails here at once, not F_WAIT
// clocks later.
reg [9:0] f_was_to_go0 = 0, f_was_to_go1 = 0;
reg f_was_waiting0 = 1'b0, f_was_waiting1 = 1'b0;
always @(posedge clock) begin
    f_was_to_go0 <= f_to_go0;
    f_was_to_go1 <= f_to_go1;
    f_was_waiting0 <= f_waits0 && !reset;
    f_was_waiting1 <= f_waits1 && !reset;
end
wire ok_progress = (!(f_was_waiting0 && f_waits0) || f_to_go0 < f_was_to_go0)
    && (!(f_was_waiting1 && f_waits1) || f_to_go1 < f_was_to_go1);

// Invariants (they make it inductive).
// What has waited, and what it still waits, fit the bound.
wire ok_wait_budget = f_wait_clocks0 + f_to_go0 <= F_WAIT && f_wait_clocks1 + f_to_go1 <= F_WAIT;
// The environment's counters stay in their bounds.
wire ok_env_bounds = f_tbl_refused < F_READY && f_fp_refused < F_READY
    && f_tbl_quiet0 < F_LATENCY && f_tbl_quiet1 < F_LATENCY && f_fp_quiet0 < F_LATENCY && f_fp_quiet1 < F_LATENCY
    && (f_tbl_out0 != 0 || f_tbl_quiet0 == 0) && (f_tbl_out1 != 0 || f_tbl_quiet1 == 0)
    && (f_fp_out0 != 0 || f_fp_quiet0 == 0) && (f_fp_out1 != 0 || f_fp_quiet1 == 0);
// Reads outstanding are the ones the state awaits: the metadata's, a
// walk's asked ways, a verify's fingerprint (until its registered answer;
// outside VERIFY_WAIT the registered answer is of no read: it may be one
// memory gave during a reset).
wire ok_reads_awaited0 = f_tbl_out0 == (f_state0[3] ? 1 : f_state0[5] ? f_pop8(f_asked0) : 0)
    && f_fp_out0 + (f_state0[7] && f_fp_seen0) == f_state0[7];
wire ok_reads_awaited1 = f_tbl_out1 == (f_state1[3] ? 1 : f_state1[5] ? f_pop8(f_asked1) : 0)
    && f_fp_out1 + (f_state1[7] && f_fp_seen1) == f_state1[7];
// A walk asks lowest first and receives in order; a verify has a candidate,
// and knows whether it is the last.
wire ok_walk0 = !f_state0[5] || ((f_issue0 & ~f_receive0) == 0 && f_issue_more0 == (f_issue0 != 0)
    && (f_issue0 == 0 || (f_asked0 & ~f_below_issue0) == 0));
wire ok_walk1 = !f_state1[5] || ((f_issue1 & ~f_receive1) == 0 && f_issue_more1 == (f_issue1 != 0)
    && (f_issue1 == 0 || (f_asked1 & ~f_below_issue1) == 0));
wire ok_verify0 = !(f_state0[6] || f_state0[7]) || (f_cands0 != 0
    && (!f_state0[7] || [[fsms$0.more_candidates$q]] == (f_pop8(f_cands0) > 1)));
wire ok_verify1 = !(f_state1[6] || f_state1[7]) || (f_cands1 != 0
    && (!f_state1[7] || [[fsms$1.more_candidates$q]] == (f_pop8(f_cands1) > 1)));
// No FSM has a command while the metadata is cleared.
wire ok_clearing_idle = ![[clearing$q]] || (!f_busy0 && !f_busy1);

always @* if (f_past_valid && !reset) begin
    assert(ok_wait_bound);
    assert(ok_progress);
    assert(ok_wait_budget);
    assert(ok_env_bounds);
    assert(ok_reads_awaited0);
    assert(ok_reads_awaited1);
    assert(ok_walk0);
    assert(ok_walk1);
    assert(ok_verify0);
    assert(ok_verify1);
    assert(ok_clearing_idle);
end

// A command waits through another's whole walk and verify, and is granted.
reg f_long_wait1 = 1'b0;
always @(posedge clock) if (f_running && f_waits1 && f_wait_clocks1 >= 12) f_long_wait1 <= 1'b1;
wire cover_long_wait_granted = f_running && f_long_wait1 && f_holds1;
