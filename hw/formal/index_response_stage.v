// Properties of the wide core's stage on the index's responses
// (`IndexResponseStage`), checked against a plain queue of the responses
// the index handed over and the controller has not yet taken. A response
// is {tag, status, entry, refcount, flags}: 8 + 4 + 16 + 8 + 4 bits.
localparam F_RW = 40;

reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);

wire [F_RW-1:0] f_in = {from_index$tag, from_index$status, from_index$entry, from_index$refcount, from_index$flags};
wire [F_RW-1:0] f_out =
    {to_controller$tag, to_controller$status, to_controller$entry, to_controller$refcount, to_controller$flags};
wire f_push = from_index$valid && from_index$ready;
wire f_pop = to_controller$valid && to_controller$ready;

// The reference: up to two responses, oldest in f_queue0 (the stage holds
// one; a second would be a bug the properties must see).
reg [F_RW-1:0] f_queue0 = 0, f_queue1 = 0;
reg [1:0] f_count = 0;
always @(posedge clock) begin
    if (reset) begin
        f_count <= 0;
    end else begin
        case ({f_push, f_pop})
        2'b10: begin
            if (f_count == 0) f_queue0 <= f_in;
            if (f_count == 1) f_queue1 <= f_in;
            f_count <= f_count + 1'b1;
        end
        2'b01: begin
            f_queue0 <= f_queue1;
            f_count <= f_count - 1'b1;
        end
        2'b11: begin
            f_queue0 <= f_count == 1 ? f_in : f_queue1;
            if (f_count == 2) f_queue1 <= f_in;
        end
        default: ;
        endcase
    end
end

// What the stage promises.
// The response the controller takes is the oldest the index handed over
// and the controller has not taken, unchanged.
wire ok_order = !f_pop || f_out == f_queue0;
// It offers a response exactly while it holds one, and takes one from the
// index exactly while it holds none.
wire ok_offers = to_controller$valid == (f_count != 0);
wire ok_room = from_index$ready == (f_count == 0);
wire ok_count = f_count <= 1;
// The invariant that ties the queue to the registers.
wire ok_registers = full$q == (f_count != 0)
    && (f_count == 0 || {tag$q, status$q, entry$q, refcount$q, flags$q} == f_queue0);

always @* if (f_past_valid && !reset) begin
    assert(ok_order);
    assert(ok_offers);
    assert(ok_room);
    assert(ok_count);
    assert(ok_registers);
end

// The interesting states are reachable.
wire cover_held_while_stalled = f_past_valid && !reset && f_count == 1 && !to_controller$ready && from_index$valid;
wire cover_taken = f_past_valid && !reset && f_pop;
