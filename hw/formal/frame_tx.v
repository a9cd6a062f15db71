// Properties of the board link's transmit framer (`FrameTransmitter`),
// against a shadow written here from the protocol: any pending frames, any
// fields, a UART that takes bytes whenever it likes. Each frame's fields
// hold while it is sent (the board top's registers do). Parameter:
// F_SENDING, the value of `FrameTxState::Sending` (from Rust).
// [[name]] is an internal name of the flattened design.
reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);
wire f_running = f_past_valid && !reset;
// A request is one of the five kinds (`HostRequest` 1..5).
always @* if (request_ready) assume(request >= 3'd1 && request <= 3'd5);

// `f_crc_step` is in crc32.v.

// The shadow: a frame under way (`f_busy`), what it is (`f_sel`: 1 an
// error, 2 a response, 3 a request of kind `f_req`), its tag and payload
// length, the bytes taken so far (`f_n`), the CRC over them, and the
// fields it was started with. Errors go before responses, responses
// before requests.
localparam SEL_ERROR = 2'd1, SEL_RESPONSE = 2'd2, SEL_REQUEST = 2'd3;
reg f_busy = 1'b0;
reg [1:0] f_sel = 0;
reg [2:0] f_req = 0;
reg [7:0] f_tag = 0;
reg [4:0] f_n = 0;
reg [31:0] f_crc = 0;
// Clocks since the frame began or its last byte was taken.
reg [3:0] f_since = 0;
wire f_start = f_running && !f_busy && (err_pending || rsp_pending || request_ready);
wire [1:0] f_start_sel = err_pending ? SEL_ERROR : rsp_pending ? SEL_RESPONSE : SEL_REQUEST;
wire f_take = valid && ready;

// The frame's kind byte and payload length (`protocol::payload_lens`).
wire [7:0] f_kind = f_sel == SEL_ERROR ? 8'h45 : f_sel == SEL_RESPONSE ? 8'h52
    : f_req == 3'd1 ? 8'h56 : f_req == 3'd2 ? 8'h4d : f_req == 3'd3 ? 8'h4e : f_req == 3'd4 ? 8'h51 : 8'h57;
wire [4:0] f_len = f_sel == SEL_ERROR ? 5'd2 : f_sel == SEL_RESPONSE ? 5'd8
    : f_req == 3'd1 ? 5'd6 : f_req == 3'd2 ? 5'd4 : f_req == 3'd3 ? 5'd12 : f_req == 3'd4 ? 5'd2 : 5'd22;

// The fields the frame began with; they hold while it is sent.
reg [7:0] f_err_code = 0, f_err_kind = 0;
reg [3:0] f_status = 0;
reg [31:0] f_value = 0;
reg [2:0] f_flags = 0;
reg [15:0] f_cleaned = 0;
reg [23:0] f_from = 0, f_to = 0;
reg [31:0] f_addr = 0;
reg [63:0] f_wdata = 0;
reg [15:0] f_entry = 0;
reg [159:0] f_fp = 0;
always @* if (f_busy && f_sel == SEL_ERROR) assume(err_code == f_err_code && err_kind == f_err_kind);
always @* if (f_busy && f_sel == SEL_RESPONSE)
    assume(rsp_status == f_status && rsp_value == f_value && rsp_flags == f_flags && rsp_cleaned == f_cleaned);
always @* if (f_busy && f_sel == SEL_REQUEST)
    assume(mv_from == f_from && mv_to == f_to && mem_addr == f_addr && mem_wdata == f_wdata
        && fp_addr == f_entry && fp_wdata == f_fp);

// The payload's byte `f_i` (multi-byte fields big-endian).
wire [4:0] f_i = f_n - 5'd5;
wire [7:0] f_payload =
    f_sel == SEL_ERROR ? (f_i == 0 ? f_err_code : f_err_kind)
    : f_sel == SEL_RESPONSE ? (f_i == 0 ? {4'd0, f_status} : f_i <= 4 ? f_value >> (8 * (4 - f_i))
        : f_i == 5 ? {5'd0, f_flags} : f_cleaned >> (8 * (7 - f_i)))
    : f_req == 3'd1 ? (f_i <= 2 ? f_from >> (8 * (2 - f_i)) : f_to >> (8 * (5 - f_i)))
    : f_req == 3'd2 ? f_addr >> (8 * (3 - f_i))
    : f_req == 3'd3 ? (f_i <= 3 ? f_addr >> (8 * (3 - f_i)) : f_wdata >> (8 * (11 - f_i)))
    : f_req == 3'd4 ? f_entry >> (8 * (1 - f_i))
    : (f_i <= 1 ? f_entry >> (8 * (1 - f_i)) : f_fp >> (8 * (21 - f_i)));
// The frame's byte `f_n`: SYNC, kind, tag, length, payload, CRC.
wire [7:0] f_expect = f_n == 0 ? 8'ha5 : f_n == 1 ? f_kind : f_n == 2 ? f_tag : f_n == 3 ? 8'd0
    : f_n == 4 ? {3'd0, f_len} : f_n < f_len + 5 ? f_payload : f_crc >> (8 * (f_len + 8 - f_n));
wire f_last = f_n == f_len + 8;

always @(posedge clock) begin
    if (f_since != 4'hf) f_since <= f_since + 1'b1;
    if (f_start) begin
        f_busy <= 1'b1;
        f_sel <= f_start_sel;
        f_req <= request;
        f_tag <= err_pending ? err_tag : rsp_pending ? rsp_tag : seq;
        f_n <= 0;
        f_crc <= 32'hffffffff;
        f_since <= 0;
        f_err_code <= err_code;
        f_err_kind <= err_kind;
        f_status <= rsp_status;
        f_value <= rsp_value;
        f_flags <= rsp_flags;
        f_cleaned <= rsp_cleaned;
        f_from <= mv_from;
        f_to <= mv_to;
        f_addr <= mem_addr;
        f_wdata <= mem_wdata;
        f_entry <= fp_addr;
        f_fp <= fp_wdata;
    end
    if (f_busy && f_take) begin
        f_n <= f_n + 1'b1;
        f_since <= 0;
        if (f_n >= 1 && f_n < f_len + 5) f_crc <= f_crc_step(f_crc, data);
        if (f_last) f_busy <= 1'b0;
    end
    if (reset) f_busy <= 1'b0;
end

// What the framer promises.
// Every byte the UART takes is the protocol's byte of the frame (its CRC
// included), and the framer offers bytes only while a frame is under way.
wire ok_bytes = !valid || (f_busy && data == f_expect);
// Its last byte ends it; `error_sent` and `response_sent` pulse on exactly
// that byte of an error and a response, `request_started` exactly when a
// request frame begins (none is pending of a higher kind).
wire ok_ends = error_sent == (f_busy && f_take && f_last && f_sel == SEL_ERROR)
    && response_sent == (f_busy && f_take && f_last && f_sel == SEL_RESPONSE)
    && request_started == (f_start && f_start_sel == SEL_REQUEST);
wire ok_busy = busy == f_busy && sending_request == (f_busy && f_sel == SEL_REQUEST);
// A byte is offered within four clocks of the frame's start or of the last
// byte taken: the link never stalls on the framer.
wire ok_offers = !f_busy || valid || f_since < 4;

// Invariants (they make the above inductive).
wire ok_tracks = ([[state$q]] == F_SENDING) == f_busy
    && (f_busy || (![[tx_fresh_a$q]] && ![[tx_fresh_b$q]] && ![[tx_fresh$q]]))
    && (!f_busy || ([[tx_index$q]] == f_n && [[tx_at$q]] == (27'd1 << f_n) && f_n <= f_len + 8
        && [[tx_kind$q]] == f_kind && [[tx_len$q]] == f_len && [[tx_tag$q]] == f_tag
        && [[tx_is_req$q]] == (f_sel == SEL_REQUEST) && f_sel != 0
        && (f_sel != SEL_REQUEST || (f_req >= 3'd1 && f_req <= 3'd5))
        && [[tx_crc$q]] == (f_n <= f_len + 5 ? f_crc : f_crc << (8 * (f_n - f_len - 5)))));
always @* if (f_running) begin
    assert(ok_bytes);
    assert(ok_ends);
    assert(ok_busy);
    assert(ok_offers);
    assert(ok_tracks);
end

// The interesting states are reachable: an error and a response sent
// whole, a fingerprint read sent whole, a fingerprint write's first
// fingerprint byte, and a request begun after an error was sent (the order).
reg f_sent_error = 1'b0;
always @(posedge clock) if (error_sent) f_sent_error <= 1'b1;
wire cover_error_sent = f_running && error_sent;
wire cover_response_sent = f_running && response_sent;
wire cover_fp_read_sent = f_running && f_busy && f_take && f_last && f_sel == SEL_REQUEST && f_req == 3'd4;
wire cover_fp_write_fp = f_running && f_busy && f_take && f_sel == SEL_REQUEST && f_req == 3'd5 && f_n == 7;
wire cover_request_after_error = f_running && f_sent_error && request_started;
