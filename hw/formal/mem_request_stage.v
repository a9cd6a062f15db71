// Properties of the wide core's request stage on the index's memory ports
// (`MemRequestStage`), checked against a plain queue of the requests the
// index handed over and the memory has not yet taken. A request is
// {write, addr, wdata, tag}. Parameters: F_AW (address bits), F_DW (data
// bits); the tag has 4 bits.
localparam F_RW = 1 + F_AW + F_DW + 4;

reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);

wire [F_RW-1:0] f_in = {from_index$req_write, from_index$req_addr, from_index$req_wdata, from_index$req_tag};
wire [F_RW-1:0] f_out = {to_memory$req_write, to_memory$req_addr, to_memory$req_wdata, to_memory$req_tag};
wire f_push = from_index$req_valid && from_index$req_ready;
wire f_pop = to_memory$req_valid && to_memory$req_ready;

// The reference: up to three requests, oldest in f_queue0 (the stage may
// hold two; a third would be a bug the properties must see).
reg [F_RW-1:0] f_queue0 = 0, f_queue1 = 0, f_queue2 = 0;
reg [1:0] f_count = 0;
always @(posedge clock) begin
    if (reset) begin
        f_count <= 0;
    end else begin
        case ({f_push, f_pop})
        2'b10: begin
            if (f_count == 0) f_queue0 <= f_in;
            if (f_count == 1) f_queue1 <= f_in;
            if (f_count == 2) f_queue2 <= f_in;
            f_count <= f_count + 1'b1;
        end
        2'b01: begin
            f_queue0 <= f_queue1;
            f_queue1 <= f_queue2;
            f_count <= f_count - 1'b1;
        end
        2'b11: begin
            f_queue0 <= f_count == 1 ? f_in : f_queue1;
            f_queue1 <= f_count == 2 ? f_in : f_queue2;
            if (f_count == 3) f_queue2 <= f_in;
        end
        default: ;
        endcase
    end
end

// What the stage promises.
// The request the memory takes is the oldest one handed over and not yet
// taken: nothing lost, duplicated, reordered or changed.
wire ok_order = !f_pop || f_out == f_queue0;
// It offers a request exactly when it holds one, and takes one from the
// index exactly when it has room: two requests, so a request a clock
// passes while the memory takes them.
wire ok_offers = to_memory$req_valid == (f_count != 0);
wire ok_room = from_index$req_ready == (f_count < 2);
wire ok_count = f_count <= 2;
// The memory's answers reach the index as they are.
wire ok_answers = from_index$rsp_valid == to_memory$rsp_valid && from_index$rsp_tag == to_memory$rsp_tag
    && from_index$rsp_rdata == to_memory$rsp_rdata;

// Invariants that tie the queue to the registers (they make the
// properties inductive).
wire ok_registers = main_valid$q == (f_count != 0) && skid_valid$q == (f_count == 2)
    && (f_count == 0 || {main_write$q, main_addr$q, main_wdata$q, main_tag$q} == f_queue0)
    && (f_count < 2 || {skid_write$q, skid_addr$q, skid_wdata$q, skid_tag$q} == f_queue1);

always @* if (f_past_valid && !reset) begin
    assert(ok_order);
    assert(ok_offers);
    assert(ok_room);
    assert(ok_count);
    assert(ok_answers);
    assert(ok_registers);
end

// The interesting states are reachable.
wire cover_full = f_past_valid && !reset && f_count == 2;
wire cover_push_and_pop_while_holding_one = f_past_valid && !reset && f_count == 1 && f_push && f_pop;
wire cover_drain_from_full = f_past_valid && !reset && f_count == 2 && f_pop && !f_push;
