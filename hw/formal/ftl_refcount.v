// Properties of the reference counts of the state-machine FTL controller
// (FtlController alone). The commands, the index's answers and the FTL
// memory are left to the environment: memory may answer any read with any
// word. The properties are therefore relative to what memory answers: each
// write of a PAGE record is checked against the record the controller read
// there. Together with a memory that keeps what it is told, they give "a
// count never wraps, and a page is freed only when its last reference goes".
//
// What the environment is held to:
// - the first clock is a reset;
// - the configuration changes only during a reset, and cfg$refcount_max is
//   at least 1 (the host's limits; a count of 0 means "free");
// - memory answers a read only while one is outstanding (the port's
//   contract: in order, at least one clock after accepting it);
// - a release reads a count of at least 1: the pid it releases is mapped,
//   so it is referenced. (Memory that says 0 there is corrupt; the
//   controller does not check, and would free the pid a second time.)
// [[name]] is an internal name of the flattened design; S_* are the
// controller's state numbers, passed in from its `State` enum.
reg f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(reset);

wire [88:0] f_config = {cfg$dev_bits, cfg$block_bits, cfg$page_bits, cfg$reserve, cfg$lpas, cfg$array_wide,
    cfg$refcount_max, cfg$nvm_slots, cfg$nvm_cooperative};
reg [88:0] f_config_before = 0;
reg f_reset_before = 1'b1;
always @(posedge clock) begin
    f_config_before <= f_config;
    f_reset_before <= reset;
end
always @* assume(cfg$refcount_max != 0);
always @* if (f_past_valid && !reset && !f_reset_before) assume(f_config == f_config_before);

wire [6:0] f_state = [[state$q]];
wire f_rmw_write = [[rmw_write$q]];
localparam [3:0] F_REGION_PAGE = 4'h1, F_REGION_PIDS = 4'h9;
wire f_read = mem$req_valid && mem$req_ready && !mem$req_write;
wire f_write = mem$req_valid && mem$req_ready && mem$req_write;
wire f_page_write = f_write && mem$req_addr[31:28] == F_REGION_PAGE;
wire f_push = f_write && mem$req_addr[31:28] == F_REGION_PIDS;

// The read outstanding, and the last PAGE record memory answered.
reg f_pending = 1'b0;
reg [31:0] f_read_addr = 0;
reg f_seen = 1'b0;
reg [31:0] f_page_addr = 0;
reg [63:0] f_page = 0;
// A pid freed and not yet pushed onto the free list.
reg f_freed = 1'b0;
reg [23:0] f_freed_pid = 0;
always @(posedge clock) begin
    if (f_read) begin
        f_pending <= 1'b1;
        f_read_addr <= mem$req_addr;
    end
    if (f_pending && mem$rsp_valid) begin
        f_pending <= 1'b0;
        if (f_read_addr[31:28] == F_REGION_PAGE) begin
            f_seen <= 1'b1;
            f_page_addr <= f_read_addr;
            f_page <= mem$rsp_rdata;
        end
    end
    if (f_page_write && f_state == S_RFree) begin
        f_freed <= 1'b1;
        f_freed_pid <= mem$req_addr[23:0];
    end
    if (f_push) f_freed <= 1'b0;
    if (reset) begin
        f_pending <= 1'b0;
        f_seen <= 1'b0;
        f_freed <= 1'b0;
    end
end
always @* if (!f_pending) assume(!mem$rsp_valid);
always @* if (f_state == S_RReadPage && f_pending && mem$rsp_valid) assume(mem$rsp_rdata[63:52] != 0);

// A PAGE word's fields (`layout.rs`): refcount[63:52], version[51:44],
// in_nvm[41], has_entry[40], entry[39:24], ppa[23:0]; bits 43:42 are no
// field's. Without the NVM cache (F_NVM_CACHE = 0) the controller writes
// in_nvm as 0: it keeps the rest of a record it rewrites, and a record
// read with in_nvm set (memory is arbitrary here) loses that bit.
localparam [63:0] F_PAGE_FIELDS = F_NVM_CACHE ? 64'hfffff3ffffffffff : 64'hfffff1ffffffffff;
wire [11:0] f_old_count = f_page[63:52];
wire [11:0] f_new_count = mem$req_wdata[63:52];
wire f_same_record = f_seen && f_page_addr == mem$req_addr;
wire [63:0] f_old_fields = f_page & F_PAGE_FIELDS;
wire f_rest_kept = mem$req_wdata[51:0] == f_old_fields[51:0];

// A hit adds one reference, only below the limit, to the record it read.
wire ok_increment = !(f_page_write && f_state == S_WWriteHit)
    || (f_same_record && f_old_count < cfg$refcount_max && f_new_count == f_old_count + 12'h1 && f_rest_kept);
// A release with other references left takes away one.
wire ok_decrement = !(f_page_write && f_state == S_RDec)
    || (f_same_record && f_old_count > 12'h1 && f_new_count == f_old_count - 12'h1 && f_rest_kept);
// A pid is freed only from its last reference: count 0, the next version,
// the rest kept.
wire ok_free_at_last = !(f_page_write && f_state == S_RFree)
    || (f_same_record && f_old_count == 12'h1 && f_new_count == 0
        && mem$req_wdata[51:44] == f_page[51:44] + 8'h1 && mem$req_wdata[43:0] == f_old_fields[43:0]);
// Moving a page in garbage collection keeps its count (and all but its
// PPA), and so does unlinking a saturated copy from its entry (all but
// bit 40, cleared): both write back the record they have just read. So do
// the NVM cache's moves of a page, between a slot and the flash (a
// write-back, a cooperative drop): all but the PPA and `in_nvm`.
wire f_moved_in_nvm = f_page_write && (f_state == S_WbPage || f_state == S_GDrop);
wire ok_count_kept = (!(f_page_write && f_state == S_GMoved)
        || (f_same_record && f_new_count == f_old_count && mem$req_wdata[51:24] == f_old_fields[51:24]))
    && (!f_moved_in_nvm || (f_same_record && mem$req_wdata[63:42] == f_old_fields[63:42]
        && mem$req_wdata[40:24] == f_old_fields[40:24]))
    && (!(f_page_write && f_state == S_WUnlink)
        || (f_same_record && mem$req_wdata == (f_old_fields & ~64'h10000000000)));
// A PAGE word written has nothing outside its fields.
wire ok_page_fields = !f_page_write || (mem$req_wdata & ~F_PAGE_FIELDS) == 0;
// A new copy starts with one reference.
wire ok_new_copy = !(f_page_write && f_state == S_WWritePage) || f_new_count == 12'h1;
// No other state writes a PAGE record.
wire ok_page_writers = !f_page_write || f_state == S_WWriteHit || f_state == S_RDec || f_state == S_RFree
    || f_state == S_WUnlink || f_state == S_GMoved || f_state == S_WWritePage || f_state == S_WbPage
    || f_state == S_GDrop;
// The free list gets exactly the pids that were freed, each once.
wire ok_push_freed = !f_push || (f_freed && mem$req_wdata == {40'h0, f_freed_pid});
wire ok_free_once = !(f_page_write && f_state == S_RFree) || !f_freed;

// Invariants that make the above inductive: the outstanding read is the one
// the state asks for, and the word the controller holds is the record
// memory last answered.
wire ok_pending = f_pending == [[pending$q]] && (!f_pending || (mem_read && f_read_addr == mem$req_addr));
wire f_holds_page = f_seen && f_page == [[word$q]];
wire ok_hit_record = f_state != S_WWriteHit
    || (f_holds_page && f_page_addr == {8'h10, [[e_pid$q]]} && f_page[63:52] < cfg$refcount_max);
wire ok_release_record = !(f_state == S_RDec || f_state == S_RFree)
    || (f_holds_page && f_page_addr == {8'h10, [[old_pid$q]]}
        && (f_state == S_RDec) == (f_page[63:52] > 12'h1) && f_page[63:52] != 0);
wire ok_rewrite_record = (!((f_state == S_GMoved || f_state == S_WUnlink || f_state == S_GDrop) && f_rmw_write)
        || (f_holds_page && f_page_addr == {8'h10, [[e_pid$q]]}))
    && (!(f_state == S_WbPage && f_rmw_write) || (f_holds_page && f_page_addr == {8'h10, [[wb_pid$q]]}));
// A read-modify-write state writes only after its read.
wire ok_rmw = !f_rmw_write || (!f_pending && (f_state == S_GMoved || f_state == S_WUnlink || f_state == S_FDevv
    || f_state == S_PBlk || f_state == S_RBlk || f_state == S_RDevv || f_state == S_REntry || f_state == S_WbPage
    || f_state == S_GDrop));
// A release returns to the write or trim that called it (one of the three
// values of `Return`; the return point is set at reset, so it always names
// a caller).
wire ok_returns = [[ret$q]] <= 2'd2;
wire ok_freed_pending = f_freed == (f_state == S_RBlk || f_state == S_RDevv || f_state == S_RPushPid
        || f_state == S_RPslot || f_state == S_RPushSlot)
    && (!f_freed || f_freed_pid == [[old_pid$q]]);

always @* if (f_past_valid && !reset) begin
    assert(ok_increment);
    assert(ok_decrement);
    assert(ok_free_at_last);
    assert(ok_count_kept);
    assert(ok_new_copy);
    assert(ok_page_writers);
    assert(ok_page_fields);
    assert(ok_push_freed);
    assert(ok_free_once);
    assert(ok_pending);
    assert(ok_hit_record);
    assert(ok_release_record);
    assert(ok_rewrite_record);
    assert(ok_rmw);
    assert(ok_freed_pending);
    assert(ok_returns);
end

// The interesting states are reachable.
wire f_running = f_past_valid && !reset;
wire cover_increment = f_running && f_page_write && f_state == S_WWriteHit;
wire cover_saturated = f_running && f_page_write && f_state == S_WUnlink;
wire cover_decrement = f_running && f_page_write && f_state == S_RDec;
wire cover_free = f_running && f_push;

`ifdef DITTO_WITNESS
// Witnesses are searched for in a narrow environment (the proof has the
// whole one): the smallest geometry, one LPA, memory and the index always
// ready and answering on the next clock, a command always waiting.
always @* assume(cfg$dev_bits == 0 && cfg$block_bits == 0 && cfg$page_bits == 1 && cfg$reserve == 0
    && cfg$lpas == 1 && cfg$refcount_max == 12'h2 && cmd$lpa == 0 && cmd$valid && (cmd$op == 1 || cmd$op == 4)
    && cmd$fp[159:8] == 0 && cleaner_hold && rsp$ready && mv$ready && mem$req_ready && idx_cmd$ready
    && idx_rsp$valid && mem$rsp_valid == f_pending);
`endif
