// Properties of the board's UART, one direction of the host link: the
// transmitter's line goes to the receiver, and the environment may flip the
// line (`glitch`) on any clock. Parameters: F_PERIOD, clocks per bit; the
// receiver's and transmitter's state values (F_RX_*, F_TX_*, from Rust).
// [[name]] is an internal name of the flattened design.
reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);
wire f_running = f_past_valid && !reset;

wire [1:0] f_rx_state = [[rx.state$q]];
wire f_tx_busy = [[tx.state$q]] == F_TX_SENDING;
wire f_rx_busy = f_rx_state != F_RX_IDLE;
wire f_accept = valid && ready;

// In sync: both ends idle on a clean, idle line (the receiver's
// synchronizer too), and no corruption or reset since.
reg f_synced = 1'b0;
// The bytes in flight (accepted, not yet received: two at most, since the
// transmitter takes the next byte as its stop bit ends, half a bit before
// the receiver delivers), oldest first, with their ages in clocks.
reg [1:0] f_pending = 0;
reg f_overrun = 1'b0;
reg [7:0] f_oldest = 0, f_newest = 0;
reg [7:0] f_age = 0, f_newest_age = 0;
// Clocks since the line was last corrupted, the link last reset or the
// transmitter last busy.
reg [7:0] f_quiet = 0;
always @(posedge clock) begin
    if (f_age != 8'hff) f_age <= f_age + 1'b1;
    if (f_newest_age != 8'hff) f_newest_age <= f_newest_age + 1'b1;
    if (f_accept) begin
        f_newest <= data;
        f_newest_age <= 0;
    end
    if (rx_valid && f_pending != 0) begin
        // The oldest is received: the newest (or the byte accepted now)
        // becomes the oldest.
        f_pending <= f_pending - 1'b1 + f_accept;
        f_oldest <= f_pending == 2 ? f_newest : data;
        f_age <= f_pending == 2 ? f_newest_age + 1'b1 : 8'd0;
    end else if (f_accept) begin
        if (f_pending == 2) f_overrun <= 1'b1; else f_pending <= f_pending + 1'b1;
        if (f_pending == 0) begin
            f_oldest <= data;
            f_age <= 0;
        end
    end
    // Out of sync nothing is promised: no byte is tracked.
    if (!f_synced) f_pending <= 0;
    if (!glitch && !f_tx_busy) begin
        if (f_quiet != 8'hff) f_quiet <= f_quiet + 1'b1;
    end else
        f_quiet <= 0;
    if (!f_synced && !f_tx_busy && !f_rx_busy && [[rx.sync0$q]] && [[rx.sync1$q]] && line
            && ![[rx.out_valid$q]] && ![[rx.out_error$q]] && !f_accept && f_pending == 0) begin
        f_synced <= 1'b1;
        f_overrun <= 1'b0;
    end
    if (glitch || reset) begin
        f_synced <= 1'b0;
        f_pending <= 0;
        f_overrun <= 1'b0;
        f_quiet <= 0;
    end
end

// What the link promises.
// In sync, a byte received is the byte sent, and no byte comes from
// nowhere; none is sent over one still in flight.
wire ok_delivery = !(f_synced && rx_valid) || (f_pending != 0 && rx_data == f_oldest);
wire ok_no_overrun = !(f_synced && f_overrun);
// In sync, no framing error.
wire ok_no_framing_error = !(f_synced && rx_framing_error);
// In sync, a byte arrives within nine and a half bit periods (start bit to
// the middle of the stop bit) and three clocks (the receiver's two-clock
// synchronizer and its output register) of its start bit going on the line.
localparam F_LATENCY = 19 * F_PERIOD / 2 + 3;
localparam F_FRAME = 10 * F_PERIOD;
wire ok_latency = !(f_synced && f_pending != 0) || f_age <= F_LATENCY;
// After any corruption, eleven and a half bit periods of idle line (and
// the synchronizer's two clocks) bring the link back in sync.
wire ok_resync = f_quiet < 12 * F_PERIOD || f_synced;

// Invariants (they make the above inductive), while in sync. A frame's
// elapsed time E counts from the clock its start bit goes on the line (the
// clock after it was accepted), which is the age of its byte.
localparam F_HALF = F_PERIOD / 2;
// The receiver waits half a period in the start bit, a whole one after.
wire f_half = f_rx_state == F_RX_START_BIT;
wire f_tick = [[rx.tick$q]];
wire [15:0] f_rx_timer = [[rx.timer$q]];
wire [3:0] f_rx_bit = [[rx.bit_index$q]];
wire [15:0] f_tx_timer = [[tx.timer$q]];
wire [3:0] f_tx_bit = [[tx.bit_index$q]];
wire [15:0] f_rx_last = f_half ? F_HALF - 1 : F_PERIOD - 1;
// The timers and bit counters stay in range, so neither end can stall, and
// the receiver's tick comes exactly as its timer reaches its last value.
wire ok_ranges = (!f_tx_busy || (f_tx_timer < F_PERIOD && f_tx_bit <= 9))
    && (!f_rx_busy || (f_rx_timer <= f_rx_last && f_rx_bit <= 9
        && f_tick == (f_rx_timer == f_rx_last) && f_half == (f_rx_bit == 0)
        && (f_rx_state == F_RX_STOP_BIT) == (f_rx_bit == 9)))
    && (f_rx_busy || !f_tick)
    && (f_tx_busy || ![[tx.line$q]]);
// The transmitter sends the newest byte in flight: its elapsed time is that
// byte's age, and its line carries the frame's bit (start, data LSB first,
// stop). Two bytes are in flight only while the receiver finishes the older.
wire [7:0] f_tx_age = f_pending == 2 ? f_newest_age : f_age;
wire [7:0] f_tx_byte = f_pending == 2 ? f_newest : f_oldest;
wire [9:0] f_tx_frame = {1'b1, f_tx_byte, 1'b0};
wire ok_tx_follows = f_pending <= 2 && (!f_synced
    || (f_tx_busy ? f_pending != 0 && f_tx_age == f_tx_bit * F_PERIOD + f_tx_timer && [[tx$tx]] == f_tx_frame[f_tx_bit]
                    && [[tx.frame$q]] == (f_tx_frame >> f_tx_bit)
                  : f_pending == 0 || (f_pending == 1 && f_age >= 10 * F_PERIOD)));
// The receiver is on the oldest byte's frame, its timer at the frame's
// elapsed time less the synchronizer's delay, the data bits it sampled
// those of the byte; idle with a byte in flight, it has yet to see the
// start bit (or has just delivered it).
wire [7:0] f_rx_elapsed = f_half ? 3 + f_rx_timer : F_HALF + 3 + (f_rx_bit - 1) * F_PERIOD + f_rx_timer;
wire [3:0] f_sampled = f_half ? 0 : f_rx_bit - 1;
wire ok_rx_follows = !f_synced
    || (f_rx_busy ? f_pending != 0 && f_age == f_rx_elapsed
                    && ([[rx.shift$q]] >> (8 - f_sampled)) == (f_oldest & ((9'd1 << f_sampled) - 1))
                  : f_pending == 0 ? [[rx.sync0$q]] && [[rx.sync1$q]]
                  : f_age <= 2 ? [[rx.sync0$q]] == (f_age == 0) && [[rx.sync1$q]] == (f_age <= 1)
                  : rx_valid || [[rx.out_valid$q]])
    && (!(f_pending == 2) || f_age >= f_newest_age + 10 * F_PERIOD)
    && (![[rx.out_valid$q]] || (f_pending != 0 && [[rx.shift$q]] == f_oldest))
    && ![[rx.out_error$q]];
// Out of sync, a receiver busy after q quiet clocks started its frame
// before them (the line was high since, so the synchronizer held no start
// bit): its frame's elapsed time exceeds q, so it ends within the bound.
wire ok_quiet = f_synced || f_quiet < 3 || !f_rx_busy || f_rx_elapsed > f_quiet;
always @* if (f_running) begin
    assert(ok_delivery);
    assert(ok_no_overrun);
    assert(ok_no_framing_error);
    assert(ok_latency);
    assert(ok_resync);
    assert(ok_ranges);
    assert(ok_tx_follows);
    assert(ok_rx_follows);
    assert(ok_quiet);
end

// The interesting states are reachable.
reg f_corrupted = 1'b0;
always @(posedge clock) if (f_running && glitch && f_rx_busy) f_corrupted <= 1'b1;
wire cover_delivered = f_running && f_synced && rx_valid;
// The latency bound is tight: a byte takes all of it.
wire cover_slowest = f_running && f_synced && rx_valid && f_age == F_LATENCY;
// The next byte is taken while the last is still on its way.
wire cover_back_to_back = f_running && f_synced && f_pending == 1 && f_accept;
wire cover_framing_error = f_running && rx_framing_error;
wire cover_resynced = f_running && f_corrupted && f_synced;
