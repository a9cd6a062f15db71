// Properties of the board link's request decoder (`RequestDecoder`),
// against a naive decode written here from the protocol: every decision
// the decoder makes on a whole frame, and every field it names, equals
// what the frame and the board's state ask for, computed directly from
// them with plain comparisons (the decoder uses bit tricks and registers
// each step). Parameters: F_OP_STATS (the `STATS` opcode), F_OPS (the
// core's opcodes are 0..F_OPS-1), F_INDEX_STATS (the first index counter's
// selector), F_CHECKSUM and F_BUSY (error codes), F_DONE and F_MALFORMED
// (statuses), F_FP_READ, F_MEM_READ, F_MOVE, F_MEM_WRITE, F_FP_WRITE (the
// `HostRequest` values). The proof is black-box: it names no register of
// the design (every register is a function of the last few clocks' inputs,
// so induction closes on the ports alone).
reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);
wire f_running = f_past_valid && !reset;

// The environment, as the board top and the receive framer are: a frame
// has at most one kind, and the frame (payload, tag, page flag) and the
// state the decision reads ahead (whether a response was given and its
// tag, the request's tag) hold from three clocks before `done` to `done`.
always @* assume($onehot0({is_command, is_again, is_fp_data, is_mem_data, is_ack}));
reg [191:0] f_payload = 0;
reg [7:0] f_tag = 0, f_answered_tag = 0, f_request_tag = 0;
reg f_page_frame = 0, f_answered = 0;
// These now are as they were a clock ago; and for how many clocks before
// that they held (saturating).
wire f_same = payload == f_payload && tag == f_tag && page_frame == f_page_frame && answered == f_answered
    && answered_tag == f_answered_tag && request_tag == f_request_tag;
reg [2:0] f_held = 0;
always @(posedge clock) begin
    f_payload <= payload;
    f_tag <= tag;
    f_page_frame <= page_frame;
    f_answered <= answered;
    f_answered_tag <= answered_tag;
    f_request_tag <= request_tag;
    f_held <= !f_past_valid || !f_same ? 3'd0 : f_held == 3'd7 ? f_held : f_held + 1'b1;
end
always @* if (f_past_valid && done) assume(f_same && f_held >= 3'd3);

// The naive decode of a frame's command, now and as it was a clock ago.
function automatic f_malformed_of(input [191:0] p, input page);
    // A `WRITE` (0) comes with a page; the core's other ops without one.
    f_malformed_of = page ? p[190:184] != 7'd0 : (p[190:184] == 7'd0 || p[190:184] >= F_OPS);
endfunction
function automatic f_index_stats_of(input [191:0] p);
    f_index_stats_of = p[190:184] == F_OP_STATS && p[183:160] >= F_INDEX_STATS && p[183:160] < F_INDEX_STATS + 6;
endfunction
wire [23:0] f_lpa = payload[183:160];
wire f_malformed = f_malformed_of(payload, page_frame);
wire f_index_stats = f_index_stats_of(payload);
wire f_again = answered && tag == answered_tag;
// Busy: from the state a clock before `done` (the decoder's documented
// choice; a change on that clock is the core's response arriving).
reg f_refuse_before = 1'b0;
always @(posedge clock) f_refuse_before <= core_busy || response_pending || (page_frame && !page_open);
wire f_command = done && good && is_command;
wire f_refused = f_command && f_refuse_before;
wire f_resend_command = f_command && !f_refuse_before && f_again;
wire f_answer = f_command && !f_refuse_before && !f_again && (f_malformed || f_index_stats);
wire f_run = f_command && !f_refuse_before && !f_again && !f_malformed && !f_index_stats;
wire f_completes = done && good && !is_command && !is_again && tag == request_tag && !request_sending
    && ((is_fp_data && request == F_FP_READ) || (is_mem_data && request == F_MEM_READ)
        || (is_ack && (request == F_MOVE || request == F_MEM_WRITE || request == F_FP_WRITE)));
// What was decided a clock ago (answered, or completed, on the next).
reg f_answer_due = 1'b0, f_answer_malformed = 1'b0, f_complete_due = 1'b0;
reg [4:0] f_selector = 0;
always @(posedge clock) begin
    f_answer_due <= f_running && f_answer;
    f_answer_malformed <= f_malformed;
    f_selector <= f_lpa[4:0];
    f_complete_due <= f_running && f_completes;
end
wire [31:0] f_counter = f_selector == F_INDEX_STATS ? counters$commands
    : f_selector == F_INDEX_STATS + 1 ? counters$bloom_negatives
    : f_selector == F_INDEX_STATS + 2 ? counters$false_positives
    : f_selector == F_INDEX_STATS + 3 ? counters$rebuilds
    : f_selector == F_INDEX_STATS + 4 ? counters$signature_misses
    : counters$entries_used;

// What the decoder promises.
// The command's fields are the payload's: `op lpa[3] fp[20]`.
wire ok_fields = op == payload[186:184] && more == payload[191] && lpa == f_lpa && fp == payload[159:0];
// A bad CRC, or a command while one is served or its response waits (or
// whose page did not go in), is rejected, with its code; nothing else is.
wire ok_reject = reject == (done && (!good || f_refused))
    && (!reject || reject_code == (good ? F_BUSY : F_CHECKSUM));
// A command runs only when nothing is against it, and then it runs.
wire ok_run = run == f_run;
// The last response goes out again for a command with its tag, or an `A`
// while the core is idle.
wire ok_resend = resend == (f_resend_command || (done && good && is_again && answered && !core_busy));
// The frame's page is dropped unless the core will claim it.
wire ok_drop = drop_page == (done && (!good || (is_command && (f_refuse_before || f_again || f_malformed))));
// A clock later: the answer given here, with its status and value.
wire ok_answer = answer_here == f_answer_due
    && (!answer_here || (f_answer_malformed ? answer_status == F_MALFORMED && answer_value == 0
                                            : answer_status == F_DONE && answer_value == f_counter));
// A clock later: the request under way is completed by the frame that
// answers it (its kind and tag, while it is not being sent again).
wire ok_complete = complete == f_complete_due;
always @* if (f_running) begin
    assert(ok_fields);
    assert(ok_reject);
    assert(ok_run);
    assert(ok_resend);
    assert(ok_drop);
    assert(ok_answer);
    assert(ok_complete);
end

// Every decision is reachable.
wire cover_run = f_running && run;
wire cover_checksum = f_running && done && !good;
wire cover_busy = f_running && reject && good;
wire cover_resend_command = f_running && f_resend_command;
wire cover_malformed = f_running && answer_here && answer_status == F_MALFORMED;
wire cover_index_stats = f_running && answer_here && answer_status == F_DONE && f_selector == F_INDEX_STATS + 5;
wire cover_resend_again = f_running && resend && is_again;
reg [2:0] f_request_before = 0;
reg f_ack_before = 1'b0;
always @(posedge clock) begin
    f_request_before <= request;
    f_ack_before <= is_ack;
end
wire cover_complete_fp_read = f_running && complete && f_request_before == F_FP_READ;
wire cover_complete_ack = f_running && complete && f_ack_before;
