// Properties of the board link's receive framer (`FrameReceiver`), against
// a shadow receiver written here from the protocol: any bytes, at any time
// (at least two clocks apart, as a UART's are), any page assembler.
// Parameter: F_TIMEOUT, the receive timeout in clocks.
// [[name]] is an internal name of the flattened design.
reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);
wire f_running = f_past_valid && !reset;
always @* assume(timeout == F_TIMEOUT);
// Bytes are at least two clocks apart.
reg f_byte_last = 1'b0;
always @(posedge clock) f_byte_last <= data_valid;
always @* if (f_byte_last) assume(!data_valid);

localparam S_HUNT = 0, S_PADDING = 8;
wire [3:0] f_state = [[state$q]];

// `f_crc_step` is in crc32.v.

// The header lengths the protocol gives each kind a host sends.
function f_header_ok(input [7:0] k, input [15:0] len);
    f_header_ok = (k == 8'h43 && (len == 16'd24 || len == 16'd4120))
        || (k == 8'h46 && len == 16'd20) || (k == 8'h44 && len == 16'd8)
        || ((k == 8'h4b || k == 8'h41) && len == 16'd0);
endfunction

// The shadow receiver: in a frame (after its SYNC), the bytes taken since
// (`f_n`), the kind, tag and length, the CRC so far; the clocks since the
// frame's last byte (`f_gap`); a frame waiting for its page to be padded.
reg f_in = 1'b0, f_pad = 1'b0;
reg [15:0] f_n = 0, f_len = 0;
reg [7:0] f_kind = 0, f_tag = 0;
reg [31:0] f_crc = 0;
reg [23:0] f_gap = 0;
reg f_timed_out = 1'b0;
// A frame ended one and two clocks ago, and whether its CRC held.
reg f_end1 = 1'b0, f_end2 = 1'b0, f_good2 = 1'b0;
reg [7:0] f_kind2 = 0, f_tag2 = 0;
wire [31:0] f_crc_next = f_crc_step(f_crc, data);
// This clock: the frame is abandoned (timeout); a byte completes a bad
// header; a byte is the frame's last; the abandoned page is complete.
wire f_abandon = f_timed_out && !f_pad && f_in;
wire f_take = data_valid && !f_abandon && !f_pad;
wire f_header_bad = f_take && f_in && f_n == 3 && !f_header_ok(f_kind, {f_len[15:8], data});
wire f_last = f_take && f_in && f_n >= 3 && f_n == f_len + 7 && !f_header_bad;
wire f_pad_end = f_pad && pad_done;
always @(posedge clock) begin
    f_end1 <= f_last;
    f_end2 <= f_end1;
    if (f_end1) begin
        f_good2 <= f_crc == 0;
        f_kind2 <= f_kind;
        f_tag2 <= f_tag;
    end
    f_timed_out <= f_gap == F_TIMEOUT;
    if (f_in && !data_valid) f_gap <= f_gap + 1'b1; else f_gap <= 0;
    if (f_take) begin
        if (!f_in) begin
            if (data == 8'ha5) begin
                f_in <= 1'b1;
                f_n <= 0;
                f_crc <= 32'hffffffff;
            end
        end else begin
            f_n <= f_n + 1'b1;
            f_crc <= f_crc_next;
            if (f_n == 0) f_kind <= data;
            if (f_n == 1) f_tag <= data;
            if (f_n == 2) f_len <= {data, 8'd0};
            if (f_n == 3) f_len <= {f_len[15:8], data};
            if (f_header_bad || f_last) f_in <= 1'b0;
        end
    end
    if (f_abandon) begin
        f_in <= 1'b0;
        f_pad <= page_begun;
    end
    if (f_pad_end) f_pad <= 1'b0;
    if (reset) begin
        f_in <= 1'b0;
        f_pad <= 1'b0;
        f_gap <= 0;
        f_timed_out <= 1'b0;
        f_end1 <= 1'b0;
        f_end2 <= 1'b0;
    end
end

// What the framer promises.
// A frame is reported exactly when the shadow's ends (its SYNC, a good
// header, as many payload bytes as the header says, four CRC bytes), two
// clocks later, good exactly when its CRC holds, with its kind and tag:
// garbage never yields a frame, and a damaged frame is never good.
wire ok_frames = done == f_end2 && (!done || (good == f_good2 && kind == f_kind2 && tag == f_tag2));
// A header the protocol does not have is refused as its last byte arrives.
wire ok_header = (raise && raise_code == 8'd2) == f_header_bad;
// A frame left incomplete is abandoned after the timeout (after its page
// is padded, if one was begun) and nothing else is reported truncated.
wire ok_truncated = (raise && raise_code == 8'd3) == ((f_abandon && !page_begun) || f_pad_end);
// Resynchronisation: the framer is hunting for SYNC whenever the shadow
// is, and no frame outlasts the timeout without a byte.
wire ok_resync = (f_state == S_HUNT) == (!f_in && !f_pad) && (f_state == S_PADDING) == f_pad
    && (!f_in || f_gap <= F_TIMEOUT + 1);

// Invariants (they make the above inductive).
wire [15:0] f_count = [[count$q]];
wire ok_tracks = (!f_in || ([[crc$q]] == f_crc && [[gap$q]] == f_gap))
    && [[timed_out$q]] == f_timed_out && [[last$q]] == f_end1 && [[rx_done$q]] == f_end2
    && (!f_end1 || [[rx_kind$q]] == f_kind && [[rx_tag$q]] == f_tag)
    && (!f_end2 || [[rx_good$q]] == f_good2)
    && (!f_in || f_n < 1 || [[rx_kind$q]] == f_kind)
    && (!f_in || f_n < 2 || [[rx_tag$q]] == f_tag)
    && (!f_in || f_n < 3 || ([[len$q]][15:8] == f_len[15:8] && [[len_hi_page$q]] == (f_len[15:8] == 8'h10)
        && [[len_hi_zero$q]] == (f_len[15:8] == 8'h00)))
    && (!f_in || f_n < 4 || [[len$q]] == f_len)
    && (!f_in || f_state == (f_n < 4 ? f_n + 1 : f_n < f_len + 4 ? 5 : f_n < f_len + 7 ? 6 : 7))
    && (!f_in || f_n < 4 || f_n >= f_len + 4 || f_count == f_n - 4)
    && (!f_end1 || [[crc$q]] == f_crc)
    && (!f_in || f_n < f_len + 4 || f_n >= f_len + 7 || [[crc_left$q]] == f_len + 6 - f_n)
    && (f_state != 6 || [[crc_left$q]] <= 2)
    && (!f_in || f_n < 4 || f_header_ok(f_kind, f_len))
    && (!f_in || f_n < 4 || f_byte_last
        || ([[at_last$q]] == (f_count + 1 == f_len) && [[rx_is_c$q]] == (f_kind == 8'h43)))
    && (!f_in || f_n < 2 || f_byte_last
        || ([[rx_is_c$q]] == (f_kind == 8'h43) && [[rx_is_a$q]] == (f_kind == 8'h41)
            && [[rx_is_f$q]] == (f_kind == 8'h46) && [[rx_is_d$q]] == (f_kind == 8'h44)
            && [[rx_is_k$q]] == (f_kind == 8'h4b)));
always @* if (f_running) begin
    assert(ok_frames);
    assert(ok_header);
    assert(ok_truncated);
    assert(ok_resync);
    assert(ok_tracks);
end

// The interesting states are reachable.
wire cover_good_frame = f_running && done && good && kind == 8'h4b;
wire cover_bad_crc = f_running && done && !good;
wire cover_bad_header = f_running && f_header_bad;
wire cover_truncated = f_running && f_abandon && !page_begun;
wire cover_padded = f_running && f_pad_end;
