// Properties of rust-hdl's SynchronousFIFO as Ditto instantiates it (the
// lane FIFOs in front of each SHA-1 engine), checked against a plain queue.
// Parameters: F_AW (address bits; the FIFO holds 2^F_AW words), F_DW (data
// bits). Internal names of the flattened design are written [[like.this]].
localparam F_DEPTH = 1 << F_AW;

reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;

// The reference: a queue with its own head, tail and count.
reg [F_DW-1:0] f_queue [0:F_DEPTH-1];
reg [F_AW-1:0] f_head = 0;
reg [F_AW-1:0] f_tail = 0;
reg [F_AW:0] f_count = 0;
reg f_wrote_last = 1'b0;
reg f_overflowed = 1'b0;
reg f_underflowed = 1'b0;
wire f_push = write && !full;
wire f_pop = read && !empty;
always @(posedge clock) begin
    if (f_push) begin
        f_queue[f_tail] <= data_in;
        f_tail <= f_tail + 1'b1;
    end
    if (f_pop) f_head <= f_head + 1'b1;
    f_count <= f_count + f_push - f_pop;
    f_wrote_last <= f_push;
    if (write && full) f_overflowed <= 1'b1;
    if (read && empty) f_underflowed <= 1'b1;
end

// What the FIFO promises.
// A word read is the oldest word written and not yet read: nothing lost,
// duplicated or reordered.
wire ok_order = !f_pop || data_out == f_queue[f_head];
// Full exactly when it holds 2^F_AW words; empty exactly when the read side
// has every word written before the last clock.
wire ok_full = full == (f_count == F_DEPTH);
wire ok_empty = empty == (f_count - f_wrote_last == 0);
wire ok_count = f_count <= F_DEPTH;
// Overflow and underflow are sticky and raised only by a refused access.
wire ok_flags = overflow == f_overflowed && underflow == f_underflowed;

// Invariants that tie the queue to the RTL's pointers and memory (they make
// the properties inductive).
wire [F_AW:0] f_wr = [[write_logic.write_address$q]];
wire [F_AW:0] f_rd = [[read_logic.read_address$q]];
wire ok_pointers = f_wr[F_AW-1:0] == f_tail && f_rd[F_AW-1:0] == f_head && f_wr - f_rd == f_count
    && [[write_logic.dff_write_address_delay$q]] == f_wr - f_wrote_last;
reg ok_memory;
integer f_i;
always @* begin
    ok_memory = 1'b1;
    for (f_i = 0; f_i < F_DEPTH; f_i = f_i + 1)
        if (f_i < f_count && [[ram.mem]][f_head + f_i] != f_queue[f_head + f_i]) ok_memory = 1'b0;
    // The RAM's registered output holds the head word whenever it is visible.
    if (!empty && data_out != f_queue[f_head]) ok_memory = 1'b0;
end

always @* if (f_past_valid) begin
    assert(ok_order);
    assert(ok_full);
    assert(ok_empty);
    assert(ok_count);
    assert(ok_flags);
    assert(ok_pointers);
    assert(ok_memory);
end

// The interesting states are reachable.
reg f_was_full = 1'b0;
always @(posedge clock) if (full) f_was_full <= 1'b1;
wire cover_full = f_past_valid && full;
wire cover_drained_after_full = f_was_full && empty && f_count == 0;
wire cover_push_and_pop_while_full = f_past_valid && full && f_pop && write;
