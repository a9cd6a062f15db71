//! The controller's kernel: the state machine, one arm per state, and the
//! multiplexers every state shares. It is one function because RustHDL's
//! `#[hdl_gen]` kernel must be one (`update`), hence this file's length.
use super::*;

impl Logic for FtlController {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            ret,
            gc_open,
            pending,
            rmw_write,
            resetting,
            syncing,
            idx_reset_r,
            op,
            tag,
            lpa,
            lpa_ok,
            stat_sel,
            stat_ok,
            status,
            value,
            flags,
            old_valid,
            old_pid,
            old_frees_home,
            entry,
            has_entry,
            stale_hit,
            e_valid,
            e_queued,
            e_ver,
            e_pid,
            word,
            pid,
            version,
            rel_block,
            rel_has_entry,
            rel_entry,
            dev_open,
            dev_written,
            dev_free,
            dev_head,
            prog_gc,
            prog_ppa,
            cursor,
            judge,
            judged,
            cand,
            cand_block,
            cand_valid,
            have_victim,
            victim,
            victim_valid,
            pid_sp,
            next_fresh,
            stale_head,
            stale_tail,
            ahead,
            fetched,
            pid_popped,
            backlog,
            open_full,
            room_full,
            rq_valid,
            rq_write,
            rq_region,
            rq_index,
            rq_low,
            rq_low_down,
            rq_fill_mapped,
            rq_fill_page,
            rq_fill_entry,
            rq_fill_blk,
            rq_fill_dev,
            rq_pg_rc,
            rq_pg_ver,
            rq_pg_has_entry,
            rq_pg_entry,
            rq_en_queued,
            rq_en_valid,
            rq_en_ver,
            rq_blk_full,
            slot,
            drop_slot,
            hand,
            sfresh,
            shead,
            stail,
            scount,
            wb,
            wb_pid,
            wb_dev,
            in_nvm,
            fill_dev_of,
            rq_pg_in_nvm,
            rq_nvm_idx_on,
            rq_nvm_index,
            rq_nvm_low_on,
            rq_nvm_low,
            rq_fill_slot,
            rq_sl_ref,
            rq_fill_pslot,
            rq_ps_cached,
            rq_ps_dev
        );
        self.counters.clock.next = self.clock.val();
        // Cleared at reset and on RESET (while the tables are initialised).
        self.counters.reset.next = self.reset.val() | self.idx_reset_r.q.val();
        self.counters.sel.next = self.stat_sel.q.val();

        // --- The geometry, from the `cfg_*` ports ----------------------------------
        self.ppb.next = self.one16.val() << self.cfg.page_bits.val();
        self.bpd_m1.next = (self.one16.val() << self.cfg.block_bits.val()) - 1;
        self.dev_m1.next = bit_cast::<3, BLOCK_BITS>((self.one16.val() << self.cfg.dev_bits.val()) - 1);
        self.usable.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(self.bpd_m1.val() + 1 - self.cfg.reserve.val())
            << self.cfg.page_bits.val();
        // The NVM cache, if built in and given slots.
        self.nvm_on.next = self.nvm_cache.val() & (self.cfg.nvm_slots.val() != 0);
        self.coop_on.next = self.nvm_on.val() & self.cfg.nvm_cooperative.val();
        self.is_wb.next = self.wb.q.val() & self.nvm_on.val();
        self.is_read.next = self.op.q.val() == self.op_read.val();
        self.slots_m1.next = bit_cast::<ADDR_BITS, NVM_SLOT_BITS>(self.cfg.nvm_slots.val() - 1);
        self.has_free_slot.next = (self.sfresh.q.val() != self.cfg.nvm_slots.val()) | (self.scount.q.val() != 0);
        self.slot_addr.next = self.nvm_bit.val() | bit_cast::<MOVE_ADDR_BITS, ADDR_BITS>(self.slot.q.val());
        self.drop_addr.next = self.nvm_bit.val() | bit_cast::<MOVE_ADDR_BITS, ADDR_BITS>(self.drop_slot.q.val());
        // An LPA's home device is `lpa mod devices`; its blocks are `{home, b}`.
        // A write-back programs the victim's device instead.
        self.home.next = bit_cast::<3, ADDR_BITS>(self.lpa.q.val()) & self.dev_m1.val();
        if self.is_wb.val() {
            self.home.next = self.wb_dev.q.val();
        }
        self.home_base.next = bit_cast::<BLOCK_BITS, 3>(self.home.val()) << self.block_field.val();
        self.backlog.d.next = self.stale_head.q.val() != self.stale_tail.q.val();
        self.open_full.d.next = self.dev_written.q.val() == self.ppb.val();
        self.cur_ppa.next = (bit_cast::<ADDR_BITS, BLOCK_BITS>(self.dev_open.q.val()) << self.page_field.val())
            | bit_cast::<ADDR_BITS, BLOCK_BITS>(self.dev_written.q.val());
        self.ppb_m1.next = self.ppb.val() - 1;
        self.lpa_m1.next = self.cfg.lpas.val() - 1;
        self.smear1.next = self.lpa_m1.val() | (self.lpa_m1.val() >> 1);
        self.smear2.next = self.smear1.val() | (self.smear1.val() >> 2);
        self.smear4.next = self.smear2.val() | (self.smear2.val() >> 4);
        self.smear8.next = self.smear4.val() | (self.smear4.val() >> 8);
        self.lpa_mask.next = self.smear8.val() | (self.smear8.val() >> 16);
        self.pages_log2.next = bit_cast::<8, 2>(self.cfg.dev_bits.val())
            + bit_cast::<8, 4>(self.cfg.block_bits.val())
            + bit_cast::<8, 4>(self.cfg.page_bits.val());
        self.pid_mask.next = bit_cast::<ADDR_BITS, 32>((self.one32.val() << self.pages_log2.val()) - 1);
        self.count_mask.next = bit_cast::<ADDR_BITS, 32>((self.one32.val() << (self.pages_log2.val() + 1)) - 1);
        self.gblock_mask.next =
            (bit_cast::<BLOCK_BITS, 3>(self.dev_m1.val()) << self.block_field.val()) | self.bpd_m1.val();
        self.ppa_mask.next = (bit_cast::<ADDR_BITS, BLOCK_BITS>(self.gblock_mask.val()) << self.page_field.val())
            | bit_cast::<ADDR_BITS, BLOCK_BITS>(self.ppb_m1.val());
        self.cursor_mask.next =
            self.lpa_mask.val() | self.ppa_mask.val() | bit_cast::<ADDR_BITS, BLOCK_BITS>(self.gblock_mask.val());
        self.blocks_mask.next = (self.bpd_m1.val() << 1) | 1;
        self.cursor_next.next = (self.cursor.q.val() + 1) & self.cursor_mask.val();
        self.pages_mask.next = (self.ppb_m1.val() << 1) | 1;
        self.victim_page0.next =
            (bit_cast::<ADDR_BITS, BLOCK_BITS>(self.victim.q.val()) << self.page_field.val()) & self.ppa_mask.val();

        // --- The word just read, by field ------------------------------------------------
        self.rdata.next = self.mem.rsp_rdata.val();
        self.rd_mapped.next = self.rdata.val().get_bit(self.f_l2p_mapped.val().index());
        self.rd_l2p_pid.next =
            self.rdata.val().get_bits::<W_L2P_PID>(self.f_l2p_pid.val().index()) & self.pid_mask.val();
        self.rd_rc.next = self.rdata.val().get_bits::<W_PAGE_REFCOUNT>(self.f_page_refcount.val().index());
        self.rd_ver.next = self.rdata.val().get_bits::<W_PAGE_VERSION>(self.f_page_version.val().index());
        self.rd_has_entry.next = self.rdata.val().get_bit(self.f_page_has_entry.val().index());
        self.rd_page_entry.next =
            self.rdata.val().get_bits::<W_PAGE_ENTRY>(self.f_page_entry.val().index()) & self.entry_mask.val();
        self.rd_ppa.next = self.rdata.val().get_bits::<W_PAGE_PPA>(self.f_page_ppa.val().index()) & self.ppa_mask.val();
        self.rd_e_queued.next = self.rdata.val().get_bit(self.f_entry_queued.val().index());
        self.rd_e_valid.next = self.rdata.val().get_bit(self.f_entry_valid.val().index());
        self.rd_e_ver.next = self.rdata.val().get_bits::<W_ENTRY_VERSION>(self.f_entry_version.val().index());
        self.rd_e_pid.next =
            self.rdata.val().get_bits::<W_ENTRY_PID>(self.f_entry_pid.val().index()) & self.pid_mask.val();
        self.rd_in_nvm.next = self.rdata.val().get_bit(self.f_page_in_nvm.val().index()) & self.nvm_on.val();
        self.rd_slot.next = self.rdata.val().get_bits::<W_PAGE_PPA>(self.f_page_ppa.val().index());
        // A page's address as a response carries it: its PPA, or its slot's
        // NVM address.
        self.rd_addr.next = bit_cast::<32, ADDR_BITS>(self.rd_ppa.val());
        if self.rd_in_nvm.val() {
            self.rd_addr.next = bit_cast::<32, MOVE_ADDR_BITS>(
                self.nvm_bit.val() | bit_cast::<MOVE_ADDR_BITS, ADDR_BITS>(self.rd_slot.val()),
            );
        }
        self.rd_sl_pid.next =
            self.rdata.val().get_bits::<W_SLOT_PID>(self.f_slot_pid.val().index()) & self.pid_mask.val();
        self.rd_sl_ref.next = self.rdata.val().get_bit(self.f_slot_referenced.val().index());
        self.rd_ps_cached.next = self.rdata.val().get_bit(self.f_pslot_cached.val().index());
        self.rd_ps_dev.next =
            self.rdata.val().get_bits::<W_PSLOT_DEVICE>(self.f_pslot_device.val().index()) & self.dev_m1.val();
        self.rd_ps_slot.next = self.rdata.val().get_bits::<W_PSLOT_SLOT>(self.f_pslot_slot.val().index());
        self.rd_devv.next =
            self.rdata.val().get_bits::<W_DEVV_VALID>(self.f_devv_valid.val().index()) & self.count_mask.val();
        // No room on the home device: its valid pages (the DEVV word just
        // read, when `WRoom` gets it) reach the usable ones, counting the
        // page this overwrite frees.
        // Reading ahead, the verdict is held until `WRoomJudge` takes it: no
        // other read is answered between `WRoom` and it.
        if self.done.val() | !self.read_ahead.val() {
            self.room_full.d.next =
                self.rd_devv.val() >= self.usable.val() + bit_cast::<ADDR_BITS, 1>(self.old_frees_home.q.val().into());
        }
        // Referenced, same version, and pointing back at the same entry.
        self.hit_live.next = (self.rd_rc.val() != 0)
            & (self.rd_ver.val() == self.e_ver.q.val())
            & self.rd_has_entry.val()
            & (self.rd_page_entry.val() == self.entry.q.val());

        // Reading ahead's flags, read through the constant that enables it,
        // so that without it they and all they drive fold away.
        self.is_ahead.next = self.ahead.q.val() & self.read_ahead.val();
        self.is_fetched.next = self.fetched.q.val() & self.read_ahead.val();

        // --- Defaults ------------------------------------------------------------------
        self.cmd.ready.next = false;
        self.rsp.valid.next = false;
        self.rsp.tag.next = self.tag.q.val();
        self.rsp.status.next = self.status.q.val();
        self.rsp.value.next = self.value.q.val();
        self.rsp.flags.next = self.flags.q.val();
        self.mv.valid.next = false;
        self.mv.from.next = bit_cast::<MOVE_ADDR_BITS, ADDR_BITS>(self.cursor.q.val());
        self.mv.to.next = bit_cast::<MOVE_ADDR_BITS, ADDR_BITS>(self.prog_ppa.q.val());
        self.idx_reset.next = self.idx_reset_r.q.val();
        self.idx_reset_r.d.next = false;
        self.cleaned.next = false;
        self.idle.next = false;
        self.idx_cmd.valid.next = false;
        self.idx_cmd.op.next = self.idx_put.val();
        // The key: the fingerprint, with the home device in its top three
        // bits in device-local mode.
        self.idx_cmd.fp.next = self.cmd.fp.val();
        if !self.cfg.array_wide.val() {
            self.idx_cmd.fp.next = self.cmd.fp.val() ^ (bit_cast::<160, 3>(self.home.val()) << self.key_home_at.val());
        }
        self.idx_cmd.entry.next = self.entry.q.val();
        self.idx_cmd.tag.next = 0.into();
        self.idx_rsp.ready.next = false;
        self.done.next = self.pending.q.val() & self.mem.rsp_valid.val();
        self.judge.d.next = false;
        self.give_back_pid.next = false;
        self.ev.next = false;
        self.ev_id.next = 0.into();
        self.ev_down.next = false;
        self.mem_read.next = false;
        self.mem_write.next = false;
        self.region.next = 0.into();
        self.index.next = Index::Cursor;
        self.low.next = Low::Zero;
        self.low_down.next = false;
        self.fill_mapped.next = false;
        self.fill_page.next = false;
        self.fill_entry.next = false;
        self.fill_blk.next = false;
        self.fill_dev.next = false;
        self.nvm_idx_on.next = false;
        self.nvm_index.next = NvmIndex::Slot;
        self.nvm_low_on.next = false;
        self.nvm_low.next = NvmLow::Slot;
        self.fill_slot.next = false;
        self.sl_ref.next = false;
        self.fill_pslot.next = false;
        self.ps_cached.next = false;
        self.ps_dev.next = 0.into();
        self.pg_in_nvm.next = self.word.q.val().get_bit(self.f_page_in_nvm.val().index()) & self.nvm_cache.val();
        self.pg_rc.next = self.word.q.val().get_bits::<W_PAGE_REFCOUNT>(self.f_page_refcount.val().index());
        self.pg_ver.next = self.word.q.val().get_bits::<W_PAGE_VERSION>(self.f_page_version.val().index());
        self.pg_has_entry.next = self.word.q.val().get_bit(self.f_page_has_entry.val().index());
        self.pg_entry.next = self.word.q.val().get_bits::<W_PAGE_ENTRY>(self.f_page_entry.val().index());
        self.en_queued.next = self.word.q.val().get_bit(self.f_entry_queued.val().index());
        self.en_valid.next = self.word.q.val().get_bit(self.f_entry_valid.val().index());
        self.en_ver.next = self.word.q.val().get_bits::<W_ENTRY_VERSION>(self.f_entry_version.val().index());
        self.blk_full.next = self.word.q.val().get_bit(self.f_blk_full.val().index());
        // `word`'s reference count plus one, or minus one for a release.
        self.rc_bump.next = self.word.q.val().get_bits::<W_PAGE_REFCOUNT>(self.f_page_refcount.val().index()) + 1;
        if self.state.q.val() == State::RDec {
            self.rc_bump.next = self.word.q.val().get_bits::<W_PAGE_REFCOUNT>(self.f_page_refcount.val().index())
                + self.rc_minus_one.val();
        }

        // Where a release returns: a state named by a constant, so the
        // state register's next value is always one (synthesis can then
        // re-encode the state machine).
        self.ret_state.next = State::APid;
        if self.ret.q.val() == Return::WMapDup {
            self.ret_state.next = State::WMapDup;
        }
        if self.ret.q.val() == Return::TUnmap {
            self.ret_state.next = State::TUnmap;
        }

        // The memory takes a request: unstaged, the state's own; staged,
        // the one registered a clock ago, which is the state's when it was
        // not already taken (a state leaves once its request is taken or,
        // for a read, answered, so a fresh state's registered request is
        // never valid).
        self.req_ok.next = true;
        if self.request_stage.val() {
            self.req_ok.next = self.rq_valid.q.val();
        }
        self.req_taken.next = self.mem.req_ready.val() & self.req_ok.val();

        // Read-modify-write states read their word, then write it back with
        // some fields changed: the read until it is answered, the write
        // until the memory takes it (`rmw_done`).
        self.rmw.next = (self.state.q.val() == State::WUnlink)
            | (self.state.q.val() == State::FDevv)
            | (self.state.q.val() == State::PBlk)
            | (self.state.q.val() == State::GMoved)
            | (self.state.q.val() == State::RBlk)
            | (self.state.q.val() == State::RDevv)
            | (self.state.q.val() == State::REntry)
            | (self.state.q.val() == State::WbPage)
            | (self.state.q.val() == State::GDrop);
        self.rmw_done.next = self.rmw_write.q.val() & self.req_taken.val();
        if self.rmw.val() {
            self.mem_read.next = !self.rmw_write.q.val();
            self.mem_write.next = self.rmw_write.q.val();
            if self.done.val() {
                self.rmw_write.d.next = true;
            }
            if self.rmw_done.val() {
                self.rmw_write.d.next = false;
            }
        }

        // --- The state machine ------------------------------------------------------
        match self.state.q.val() {
            // --- Initialising: L2P, then BLK and FREE per block, then DEV and
            // DEVV per device; then the index ---------------------------------------------
            State::InitL2p => {
                self.mem_write.next = true;
                self.region.next = self.r_l2p.val();
                if self.req_taken.val() {
                    self.cursor.d.next = self.cursor_next.val();
                    if self.cursor.q.val() == self.lpa_m1.val() {
                        self.cursor.d.next = 0.into();
                        self.state.d.next = State::InitBlk;
                    }
                }
            }
            State::InitBlk => {
                self.mem_write.next = true;
                self.region.next = self.r_blk.val();
                if self.req_taken.val() {
                    self.state.d.next = State::InitFree;
                }
            }
            State::InitFree => {
                // Slot {d, i} of the free rings holds block {d, i + 1}: device
                // d's ring starts with its blocks 1..bpd-1 (its last slot is unused).
                self.mem_write.next = true;
                self.region.next = self.r_free.val();
                self.low.next = Low::CursorNext;
                if self.req_taken.val() {
                    self.cursor.d.next = self.cursor_next.val();
                    self.state.d.next = State::InitBlk;
                    if (bit_cast::<BLOCK_BITS, ADDR_BITS>(self.cursor.q.val()) & self.bpd_m1.val()) == self.bpd_m1.val()
                    {
                        self.cursor.d.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(
                            (((bit_cast::<BLOCK_BITS, ADDR_BITS>(self.cursor.q.val()) >> self.block_field.val()) + 1)
                                << self.block_field.val())
                                & self.gblock_mask.val(),
                        );
                        if bit_cast::<3, ADDR_BITS>(self.cursor.q.val() >> self.block_field.val()) == self.dev_m1.val()
                        {
                            self.cursor.d.next = 0.into();
                            self.state.d.next = State::InitDevSetup;
                        }
                    }
                }
            }
            State::InitDevSetup => {
                // Device `cursor`: block 0 open, nothing written, the rest free.
                self.dev_open.d.next = (bit_cast::<BLOCK_BITS, ADDR_BITS>(self.cursor.q.val())
                    << self.block_field.val())
                    & self.gblock_mask.val();
                self.dev_written.d.next = 0.into();
                self.dev_free.d.next = self.bpd_m1.val();
                self.dev_head.d.next = 0.into();
                self.state.d.next = State::InitDev;
            }
            State::InitDev => {
                self.mem_write.next = true;
                self.region.next = self.r_dev.val();
                self.low.next = Low::DevHead;
                self.fill_dev.next = true;
                if self.req_taken.val() {
                    self.state.d.next = State::InitDevv;
                }
            }
            State::InitDevv => {
                self.mem_write.next = true;
                self.region.next = self.r_devv.val();
                if self.req_taken.val() {
                    self.cursor.d.next = self.cursor_next.val();
                    self.state.d.next = State::InitDevSetup;
                    if bit_cast::<3, ADDR_BITS>(self.cursor.q.val()) == self.dev_m1.val() {
                        self.cursor.d.next = 0.into();
                        self.state.d.next = State::InitIndex;
                    }
                }
            }
            State::InitIndex => {
                if self.idx_cmd.ready.val() {
                    self.state.d.next = State::Idle;
                    if self.resetting.q.val() {
                        self.resetting.d.next = false;
                        self.status.d.next = self.st_done.val();
                        self.state.d.next = State::Respond;
                    }
                }
            }

            // --- Waiting, deciding, answering --------------------------------------------
            State::Idle => {
                self.idle.next = self.cleaner_hold.val() | !self.backlog.q.val();
                if self.cmd.valid.val() {
                    self.op.d.next = self.cmd.op.val();
                    self.tag.d.next = self.cmd.tag.val();
                    self.lpa.d.next = self.cmd.lpa.val() & self.lpa_mask.val();
                    self.lpa_ok.d.next = self.cmd.lpa.val() < self.cfg.lpas.val();
                    self.stat_sel.d.next = bit_cast::<4, ADDR_BITS>(self.cmd.lpa.val());
                    self.stat_ok.d.next = self.cmd.lpa.val() < self.stats.val();
                    self.state.d.next = State::Decode;
                } else if self.backlog.q.val() & !self.cleaner_hold.val() {
                    self.syncing.d.next = false;
                    self.state.d.next = State::CReadStale;
                }
            }
            State::Decode => {
                // Taken now, but for a write (taken once the index has its key).
                self.cmd.ready.next = true;
                self.value.d.next = 0.into();
                self.flags.d.next = 0.into();
                self.old_valid.d.next = false;
                self.old_frees_home.d.next = false;
                self.has_entry.d.next = false;
                self.stale_hit.d.next = false;
                self.ahead.d.next = false;
                self.fetched.d.next = false;
                self.status.d.next = self.st_malformed.val();
                self.state.d.next = State::Respond;
                if self.op.q.val() <= self.op_trim.val() {
                    if !self.lpa_ok.q.val() {
                        self.status.d.next = self.st_range.val();
                    } else if self.op.q.val() < self.op_write_unique.val() {
                        self.cmd.ready.next = false;
                        self.state.d.next = State::Put;
                    } else if self.op.q.val() == self.op_write_unique.val() {
                        self.state.d.next = State::WReadL2p;
                    } else if self.op.q.val() == self.op_read.val() {
                        self.state.d.next = State::RdReadL2p;
                    } else {
                        self.state.d.next = State::TReadL2p;
                    }
                } else if self.op.q.val() == self.op_stats.val() {
                    self.state.d.next = State::StatsRead;
                    if !self.stat_ok.q.val() {
                        self.status.d.next = self.st_range.val();
                        self.state.d.next = State::Respond;
                    }
                } else if self.op.q.val() == self.op_sync.val() {
                    self.syncing.d.next = true;
                    self.state.d.next = State::SyncLoop;
                } else {
                    // RESET: the index clears itself, the counters and the
                    // tables start again (versions stay in the PAGE records).
                    self.resetting.d.next = true;
                    self.idx_reset_r.d.next = true;
                    self.pid_sp.d.next = 0.into();
                    self.next_fresh.d.next = 0.into();
                    self.stale_head.d.next = 0.into();
                    self.stale_tail.d.next = 0.into();
                    self.cursor.d.next = 0.into();
                    self.sfresh.d.next = 0.into();
                    self.shead.d.next = 0.into();
                    self.stail.d.next = 0.into();
                    self.scount.d.next = 0.into();
                    self.hand.d.next = 0.into();
                    self.state.d.next = State::InitL2p;
                }
            }
            State::Respond => {
                self.rsp.valid.next = true;
                if self.rsp.ready.val() {
                    // `Writes` was counted as the write was decided.
                    if self.status.q.val() >= self.st_first_error.val() {
                        self.ev.next = true;
                        self.ev_id.next = self.ev_errors.val();
                    }
                    if self.status.q.val() == self.st_unique.val() {
                        self.ev.next = true;
                        self.ev_id.next = self.ev_unique_writes.val();
                    }
                    if self.status.q.val() == self.st_duplicate.val() {
                        self.ev.next = true;
                        self.ev_id.next = self.ev_duplicate_writes.val();
                    }
                    self.state.d.next = State::Idle;
                }
            }
            State::StatsRead => {
                if self.counters.value_valid.val() {
                    self.value.d.next = self.counters.value.val();
                    self.status.d.next = self.st_done.val();
                    self.state.d.next = State::Respond;
                }
            }

            // --- WRITE_FP / WRITE_UNIQUE ---------------------------------------------------
            State::Put => {
                self.idx_cmd.valid.next = true;
                if self.idx_cmd.ready.val() {
                    self.cmd.ready.next = true;
                    self.state.d.next = State::WReadL2p;
                }
            }
            State::WReadL2p => {
                self.mem_read.next = true;
                self.region.next = self.r_l2p.val();
                self.index.next = Index::Lpa;
                if self.done.val() {
                    self.old_valid.d.next = self.rd_mapped.val();
                    self.old_pid.d.next = self.rd_l2p_pid.val();
                    if self.rd_mapped.val() {
                        self.state.d.next = State::WReadOld;
                    } else if self.op.q.val() == self.op_write_unique.val() {
                        self.state.d.next = State::WRoom;
                    } else if self.read_ahead.val() {
                        // Nothing to release: what a unique page needs can
                        // be read while the index looks up.
                        self.ahead.d.next = true;
                        self.state.d.next = State::FReadDev;
                    } else {
                        self.state.d.next = State::WPutWait;
                    }
                }
            }
            State::WReadOld => {
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::OldPid;
                if self.done.val() {
                    self.old_frees_home.d.next = (self.rd_rc.val() == 1)
                        & (bit_cast::<3, ADDR_BITS>(
                            self.rd_ppa.val() >> (self.page_field.val() + self.block_field.val()),
                        ) == self.home.val());
                    self.state.d.next = State::WPutWait;
                    if self.op.q.val() == self.op_write_unique.val() {
                        self.state.d.next = State::WRoom;
                    }
                    // Only in the NVM: its device is in its `PSLOT` record.
                    if self.rd_in_nvm.val() {
                        self.state.d.next = State::WReadOldSlot;
                    }
                }
            }
            State::WPutWait => {
                self.idx_rsp.ready.next = true;
                if self.idx_rsp.valid.val() {
                    self.entry.d.next = self.idx_rsp.entry.val() & self.entry_mask.val();
                    // Read ahead, the device's room is known already.
                    self.state.d.next = State::WRoom;
                    if self.is_fetched.val() {
                        self.state.d.next = State::WRoomJudge;
                    }
                    if self.idx_rsp.status.val() == self.idx_new.val() {
                        self.has_entry.d.next = true;
                    } else if self.idx_rsp.status.val() == self.idx_found.val() {
                        self.state.d.next = State::WReadEntry;
                    } else {
                        self.flags.d.next = self.fl_index_full.val();
                        self.ev.next = true;
                        self.ev_id.next = self.ev_index_full.val();
                    }
                }
            }
            State::WReadEntry => {
                self.mem_read.next = true;
                self.region.next = self.r_entry.val();
                self.index.next = Index::Entry;
                if self.done.val() {
                    self.e_valid.d.next = self.rd_e_valid.val();
                    self.e_queued.d.next = self.rd_e_queued.val();
                    self.e_ver.d.next = self.rd_e_ver.val();
                    self.e_pid.d.next = self.rd_e_pid.val();
                    self.state.d.next = State::WReadHit;
                    if !self.rd_e_valid.val() {
                        self.state.d.next = State::WStaleHit;
                    }
                }
            }
            State::WReadHit => {
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::EPid;
                if self.done.val() {
                    self.value.d.next = self.rd_addr.val();
                    // The word just read only picks the next state (the
                    // registers a verdict sets are set there).
                    if !self.hit_live.val() {
                        self.state.d.next = State::WStaleHit;
                    } else if self.rd_rc.val() >= self.cfg.refcount_max.val() {
                        self.state.d.next = State::WSaturatedHit;
                    } else {
                        self.state.d.next = State::WWriteHit;
                    }
                }
            }
            State::WStaleHit => {
                // A stale hit (the entry is invalid, or its page no longer
                // holds its content): stored again, the entry re-pointed.
                self.flags.d.next = self.fl_stale.val();
                self.ev.next = true;
                self.ev_id.next = self.ev_stale_hits.val();
                self.stale_hit.d.next = true;
                self.has_entry.d.next = true;
                self.state.d.next = State::WRoom;
            }
            State::WSaturatedHit => {
                // Saturated (at or above the limit, so a count never wraps):
                // the new copy becomes the entry's target, the old copy keeps
                // its references until they are released.
                self.flags.d.next = self.fl_saturated.val();
                self.stale_hit.d.next = true;
                self.has_entry.d.next = true;
                self.state.d.next = State::WRoom;
            }
            State::WWriteHit => {
                // One more reference (`value` holds the copy's PPA).
                self.mem_write.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::EPid;
                self.low.next = Low::Word;
                self.fill_page.next = true;
                self.pg_rc.next = self.rc_bump.val();
                if self.req_taken.val() {
                    if self.is_fetched.val() {
                        self.give_back_pid.next = true;
                    }
                    self.ev.next = true;
                    self.ev_id.next = self.ev_writes.val();
                    self.state.d.next = State::WMapDup;
                    if self.old_valid.q.val() {
                        self.ret.d.next = Return::WMapDup;
                        self.state.d.next = State::RReadPage;
                    }
                    // A copy in the cache is touched first.
                    if self.nvm_on.val() {
                        self.state.d.next = State::WHitPslot;
                    }
                }
            }
            State::WMapDup => {
                self.mem_write.next = true;
                self.region.next = self.r_l2p.val();
                self.index.next = Index::Lpa;
                self.low.next = Low::EPid;
                self.fill_mapped.next = true;
                if self.req_taken.val() {
                    if !self.old_valid.q.val() {
                        self.ev.next = true;
                        self.ev_id.next = self.ev_mapped_lpas.val();
                    }
                    self.status.d.next = self.st_duplicate.val();
                    self.state.d.next = State::Respond;
                }
            }
            State::WRoom => {
                // Room on the home device, counting the page this overwrite frees?
                self.mem_read.next = true;
                self.region.next = self.r_devv.val();
                self.index.next = Index::Home;
                if self.done.val() {
                    self.state.d.next = State::WRoomJudge;
                    if self.is_ahead.val() {
                        self.ahead.d.next = false;
                        self.fetched.d.next = true;
                        self.state.d.next = State::WPutWait;
                    }
                }
            }
            State::WRoomJudge => {
                // Judged from `room_full`, registered from the word read.
                if self.room_full.q.val() {
                    if self.is_fetched.val() {
                        self.give_back_pid.next = true;
                    }
                    self.status.d.next = self.st_device_full.val();
                    self.flags.d.next = 0.into();
                    self.value.d.next = 0.into();
                    self.state.d.next = State::Respond;
                    if self.has_entry.q.val() & !self.stale_hit.q.val() {
                        self.state.d.next = State::WFullEntry;
                    }
                } else if self.flags.q.val() == self.fl_saturated.val() {
                    self.state.d.next = State::WUnlink;
                } else if self.old_valid.q.val() {
                    self.ret.d.next = Return::APid;
                    self.state.d.next = State::RReadPage;
                } else if self.is_fetched.val() {
                    self.state.d.next = State::FCheck;
                } else {
                    self.state.d.next = State::APid;
                }
            }
            State::WFullEntry => {
                // The entry just allocated points at nothing: queued, and
                // nothing else.
                self.mem_write.next = true;
                self.region.next = self.r_entry.val();
                self.index.next = Index::Entry;
                self.fill_entry.next = true;
                self.en_queued.next = true;
                self.en_valid.next = false;
                self.en_ver.next = 0.into();
                if self.req_taken.val() {
                    self.state.d.next = State::WFullStale;
                }
            }
            State::WFullStale => {
                self.mem_write.next = true;
                self.region.next = self.r_stale.val();
                self.index.next = Index::StaleTail;
                self.low.next = Low::Entry;
                if self.req_taken.val() {
                    self.stale_tail.d.next = (self.stale_tail.q.val() + 1) & self.ring_mask.val();
                    self.ev.next = true;
                    self.ev_id.next = self.ev_backlog.val();
                    self.state.d.next = State::Respond;
                }
            }
            State::WUnlink => {
                // The saturated copy lets go of its entry (read, then written
                // with `has_entry` clear), which moves to the new copy: freeing
                // the old copy later must not queue an entry that is no longer
                // its own.
                self.region.next = self.r_page.val();
                self.index.next = Index::EPid;
                self.low.next = Low::Word;
                self.fill_page.next = true;
                self.pg_has_entry.next = false;
                if self.rmw_done.val() {
                    self.state.d.next = State::APid;
                    if self.is_fetched.val() {
                        self.state.d.next = State::FCheck;
                    }
                    if self.old_valid.q.val() {
                        self.ret.d.next = Return::APid;
                        self.state.d.next = State::RReadPage;
                    }
                }
            }
            State::APid => {
                // A page id: a freed one (popped), else a fresh one.
                self.pid_popped.d.next = self.pid_sp.q.val() != 0;
                if self.pid_sp.q.val() != 0 {
                    self.pid_sp.d.next = (self.pid_sp.q.val() - 1) & self.count_mask.val();
                    self.state.d.next = State::APopPid;
                } else {
                    self.pid.d.next = self.next_fresh.q.val();
                    self.next_fresh.d.next = (self.next_fresh.q.val() + 1) & self.count_mask.val();
                    self.state.d.next = State::AReadPage;
                }
            }
            State::APopPid => {
                self.mem_read.next = true;
                self.region.next = self.r_pids.val();
                self.index.next = Index::PidSp;
                if self.done.val() {
                    self.pid.d.next =
                        self.rdata.val().get_bits::<W_PIDS_PID>(self.f_pids_pid.val().index()) & self.pid_mask.val();
                    self.state.d.next = State::AReadPage;
                }
            }
            State::AReadPage => {
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::Pid;
                if self.done.val() {
                    self.version.d.next = self.rd_ver.val();
                    self.state.d.next = State::FReadDev;
                    if self.nvm_on.val() {
                        // The new copy goes to the NVM, not to the flash.
                        self.state.d.next = State::NFill;
                    }
                    if self.is_ahead.val() {
                        self.state.d.next = State::WRoom;
                    }
                }
            }
            State::FReadDev => {
                self.mem_read.next = true;
                self.region.next = self.r_dev.val();
                self.index.next = Index::Home;
                if self.done.val() {
                    self.dev_open.d.next =
                        self.rdata.val().get_bits::<W_DEV_OPEN>(self.f_dev_open.val().index()) & self.gblock_mask.val();
                    self.dev_written.d.next =
                        self.rdata.val().get_bits::<W_DEV_WRITTEN>(self.f_dev_written.val().index())
                            & self.pages_mask.val();
                    self.dev_free.d.next =
                        self.rdata.val().get_bits::<W_DEV_FREE>(self.f_dev_free.val().index()) & self.blocks_mask.val();
                    self.dev_head.d.next =
                        self.rdata.val().get_bits::<W_DEV_HEAD>(self.f_dev_head.val().index()) & self.bpd_m1.val();
                    // Set for both of `FCheck`'s ways (neither register is
                    // live here), so that `FCheck` only picks a state: a
                    // collection scans the home device from its first block
                    // with no victim yet; the page programmed is the write's.
                    self.cursor.d.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(self.home_base.val());
                    self.have_victim.d.next = false;
                    self.prog_gc.d.next = false;
                    self.state.d.next = State::FCheck;
                    if self.is_ahead.val() {
                        self.state.d.next = State::APid;
                    }
                }
            }
            State::FCheck => {
                // The open block is full and only the reserve is left: collect.
                self.state.d.next = State::PStart;
                if self.is_fetched.val() & !self.is_wb.val() {
                    // `PStart`'s choice, made here: read ahead, `dev_written`
                    // last moved in `FReadDev` long before, or in a
                    // collection at least four clocks back (`GNext`,
                    // `GErase`, `GFree` follow its last move), so
                    // `open_full` has settled.
                    self.state.d.next = State::PBlk;
                    if self.open_full.q.val() {
                        self.gc_open.d.next = false;
                        self.state.d.next = State::POpen;
                    }
                }
                if (self.dev_written.q.val() == self.ppb.val()) & (self.dev_free.q.val() <= self.cfg.reserve.val()) {
                    self.state.d.next = State::GScan;
                }
                // With the cache a write's copy goes to the NVM (read ahead,
                // the device's record is not needed after all); only a
                // write-back programs the flash.
                if self.nvm_on.val() & !self.is_wb.val() {
                    self.state.d.next = State::NFill;
                }
            }
            State::FDevv => {
                // The home device's valid pages, plus one.
                self.region.next = self.r_devv.val();
                self.index.next = Index::Home;
                self.low.next = Low::Bump24;
                if self.rmw_done.val() {
                    self.state.d.next = State::FWriteDev;
                    if self.nvm_on.val() {
                        // Into the NVM: the device's record is untouched.
                        self.ev.next = true;
                        self.ev_id.next = self.ev_writes.val();
                        self.state.d.next = State::WWritePage;
                    }
                }
            }
            State::FWriteDev => {
                self.mem_write.next = true;
                self.region.next = self.r_dev.val();
                self.index.next = Index::Home;
                self.low.next = Low::DevHead;
                self.fill_dev.next = true;
                if self.req_taken.val() {
                    self.ev.next = !self.is_wb.val();
                    self.ev_id.next = self.ev_writes.val();
                    self.state.d.next = State::WWritePage;
                    if self.is_wb.val() {
                        self.state.d.next = State::WbPage;
                    }
                }
            }
            State::WWritePage => {
                self.mem_write.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::Pid;
                self.low.next = Low::ProgPpa;
                if self.nvm_on.val() {
                    self.nvm_low_on.next = true;
                    self.nvm_low.next = NvmLow::Slot;
                }
                self.fill_page.next = true;
                self.pg_in_nvm.next = self.nvm_on.val();
                self.pg_rc.next = 1.into();
                self.pg_ver.next = self.version.q.val();
                self.pg_has_entry.next = self.has_entry.q.val();
                self.pg_entry.next = self.entry.q.val();
                if self.req_taken.val() {
                    self.ev.next = true;
                    self.ev_id.next = self.ev_live_pages.val();
                    self.state.d.next = State::WMapNew;
                    if self.has_entry.q.val() {
                        self.state.d.next = State::WWriteEntry;
                    }
                }
            }
            State::WWriteEntry => {
                self.mem_write.next = true;
                self.region.next = self.r_entry.val();
                self.index.next = Index::Entry;
                self.low.next = Low::Pid;
                self.fill_entry.next = true;
                // A re-pointed entry stays queued if it was.
                self.en_queued.next = self.stale_hit.q.val() & self.e_queued.q.val();
                self.en_valid.next = true;
                self.en_ver.next = self.version.q.val();
                if self.req_taken.val() {
                    self.state.d.next = State::WMapNew;
                }
            }
            State::WMapNew => {
                self.mem_write.next = true;
                self.region.next = self.r_l2p.val();
                self.index.next = Index::Lpa;
                self.low.next = Low::Pid;
                self.fill_mapped.next = true;
                if self.req_taken.val() {
                    if !self.old_valid.q.val() {
                        self.ev.next = true;
                        self.ev_id.next = self.ev_mapped_lpas.val();
                    }
                    self.status.d.next = self.st_unique.val();
                    self.value.d.next = bit_cast::<32, ADDR_BITS>(self.prog_ppa.q.val());
                    if self.nvm_on.val() {
                        self.value.d.next = bit_cast::<32, MOVE_ADDR_BITS>(self.slot_addr.val());
                    }
                    self.state.d.next = State::Respond;
                }
            }

            // --- Programming one page into the open block; back by `prog_gc` ----------------
            State::PStart => {
                self.state.d.next = State::PBlk;
                if self.open_full.q.val() {
                    self.gc_open.d.next = false;
                    self.state.d.next = State::POpen;
                }
            }
            State::POpen => {
                // The next free block of the home device's ring.
                self.mem_read.next = true;
                self.region.next = self.r_free.val();
                self.index.next = Index::FreeHead;
                if self.done.val() {
                    self.dev_open.d.next = self.rdata.val().get_bits::<W_FREE_BLOCK>(self.f_free_block.val().index())
                        & self.gblock_mask.val();
                    self.dev_head.d.next = (self.dev_head.q.val() + 1) & self.bpd_m1.val();
                    self.dev_free.d.next = (self.dev_free.q.val() - 1) & self.blocks_mask.val();
                    self.dev_written.d.next = 0.into();
                    self.state.d.next = State::PBlk;
                    if self.gc_open.q.val() {
                        self.state.d.next = State::GRev;
                    }
                }
            }
            State::PBlk => {
                // The open block: one more valid page; full with its last page.
                self.region.next = self.r_blk.val();
                self.index.next = Index::DevOpen;
                self.low.next = Low::Bump16;
                self.fill_blk.next = true;
                self.blk_full.next = self.dev_written.q.val() + 1 == self.ppb.val();
                if self.rmw_done.val() {
                    self.state.d.next = State::PWriteRev;
                }
            }
            State::PWriteRev => {
                self.mem_write.next = true;
                self.region.next = self.r_rev.val();
                self.index.next = Index::CurPpa;
                self.low.next = Low::Pid;
                if self.is_wb.val() & !self.prog_gc.q.val() {
                    self.nvm_low_on.next = true;
                    self.nvm_low.next = NvmLow::WbPid;
                }
                if self.prog_gc.q.val() {
                    self.low.next = Low::EPid;
                }
                if self.req_taken.val() {
                    self.prog_ppa.d.next = self.cur_ppa.val() & self.ppa_mask.val();
                    self.dev_written.d.next = (self.dev_written.q.val() + 1) & self.pages_mask.val();
                    self.state.d.next = State::FDevv;
                    // A write-back moves a page the device owes already.
                    if self.is_wb.val() {
                        self.state.d.next = State::FWriteDev;
                    }
                    if self.prog_gc.q.val() {
                        self.state.d.next = State::GMoved;
                    }
                }
            }

            // --- Garbage collection on the home device: greedy, lowest block on ties -------
            State::GScan => {
                self.mem_read.next = true;
                self.region.next = self.r_blk.val();
                self.index.next = Index::Cursor;
                // Each block read is judged the clock after (below), from
                // `word`, while the next one is read.
                if self.done.val() {
                    self.judge.d.next = true;
                    self.judged.d.next =
                        bit_cast::<BLOCK_BITS, ADDR_BITS>(self.cursor.q.val()) & self.gblock_mask.val();
                    self.cursor.d.next = self.cursor_next.val();
                    if (bit_cast::<BLOCK_BITS, ADDR_BITS>(self.cursor.q.val()) & self.bpd_m1.val()) == self.bpd_m1.val()
                    {
                        self.state.d.next = State::GScanEnd;
                    }
                }
            }
            State::GScanEnd => {
                // The last block's judgement lands (two clocks).
                if !self.judge.q.val() & !self.cand.q.val() {
                    self.state.d.next = State::GPick;
                }
            }
            State::GPick => {
                self.cursor.d.next = self.victim_page0.val();
                if !self.have_victim.q.val() {
                    // Cannot happen below the usable pages (checked first).
                    self.status.d.next = self.st_device_full.val();
                    self.state.d.next = State::Respond;
                } else if self.victim.q.val() == self.dev_open.q.val() {
                    // Relocate into a fresh block, never into the victim.
                    self.gc_open.d.next = true;
                    self.state.d.next = State::POpen;
                } else {
                    self.state.d.next = State::GRev;
                }
            }
            State::GRev => {
                self.mem_read.next = true;
                self.region.next = self.r_rev.val();
                self.index.next = Index::Cursor;
                if self.done.val() {
                    self.e_pid.d.next =
                        self.rdata.val().get_bits::<W_REV_PID>(self.f_rev_pid.val().index()) & self.pid_mask.val();
                    self.state.d.next = State::GPage;
                }
            }
            State::GPage => {
                // Live: its page id is referenced and still points at it.
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::EPid;
                if self.done.val() {
                    self.state.d.next = State::GNext;
                    if (self.rd_rc.val() != 0) & (self.rd_ppa.val() == self.cursor.q.val()) & !self.rd_in_nvm.val() {
                        self.prog_gc.d.next = true;
                        self.state.d.next = State::PStart;
                        if self.coop_on.val() {
                            // Cached in the NVM? Then it is dropped instead.
                            self.prog_gc.d.next = false;
                            self.state.d.next = State::GPslot;
                        }
                    }
                }
            }
            State::GMoved => {
                // The moved page's record: its new PPA, the rest as it is.
                self.region.next = self.r_page.val();
                self.index.next = Index::EPid;
                self.low.next = Low::ProgPpa;
                self.fill_page.next = true;
                if self.rmw_done.val() {
                    self.state.d.next = State::GMove;
                }
            }
            State::GMove => {
                self.mv.valid.next = true;
                if self.mv.ready.val() {
                    self.ev.next = true;
                    self.ev_id.next = self.ev_relocations.val();
                    self.state.d.next = State::GNext;
                }
            }
            State::GNext => {
                self.cursor.d.next = self.cursor_next.val();
                self.state.d.next = State::GRev;
                if (bit_cast::<BLOCK_BITS, ADDR_BITS>(self.cursor.q.val()) & self.ppb_m1.val()) == self.ppb_m1.val() {
                    self.state.d.next = State::GErase;
                }
            }
            State::GErase => {
                self.mem_write.next = true;
                self.region.next = self.r_blk.val();
                self.index.next = Index::Victim;
                if self.req_taken.val() {
                    self.state.d.next = State::GFree;
                }
            }
            State::GFree => {
                // The erased victim joins the end of the free ring.
                self.mem_write.next = true;
                self.region.next = self.r_free.val();
                self.index.next = Index::FreeTail;
                self.low.next = Low::Victim;
                if self.req_taken.val() {
                    self.dev_free.d.next = (self.dev_free.q.val() + 1) & self.blocks_mask.val();
                    self.ev.next = true;
                    self.ev_id.next = self.ev_erases.val();
                    // For `FCheck`, as in `FReadDev`.
                    self.cursor.d.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(self.home_base.val());
                    self.have_victim.d.next = false;
                    self.prog_gc.d.next = false;
                    self.state.d.next = State::FCheck;
                }
            }

            // --- Releasing one reference to `old_pid`; back to `ret` ---------------------------
            State::RReadPage => {
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::OldPid;
                if self.done.val() {
                    self.rel_block.d.next =
                        bit_cast::<BLOCK_BITS, ADDR_BITS>(self.rd_ppa.val() >> self.page_field.val())
                            & self.gblock_mask.val();
                    self.rel_has_entry.d.next = self.rd_has_entry.val();
                    self.rel_entry.d.next = self.rd_page_entry.val();
                    self.in_nvm.d.next = self.rd_in_nvm.val();
                    self.state.d.next = State::RFree;
                    if self.rd_rc.val() > 1 {
                        self.state.d.next = State::RDec;
                    }
                }
            }
            State::RDec => {
                self.mem_write.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::OldPid;
                self.low.next = Low::Word;
                self.fill_page.next = true;
                self.pg_rc.next = self.rc_bump.val();
                if self.req_taken.val() {
                    self.state.d.next = self.ret_state.val();
                }
            }
            State::RFree => {
                // The last reference: refcount 0, version + 1, the page invalid.
                self.mem_write.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::OldPid;
                self.low.next = Low::Word;
                self.fill_page.next = true;
                self.pg_rc.next = 0.into();
                self.pg_ver.next = self.word.q.val().get_bits::<W_PAGE_VERSION>(self.f_page_version.val().index()) + 1;
                if self.req_taken.val() {
                    self.ev.next = true;
                    self.ev_id.next = self.ev_live_pages.val();
                    self.ev_down.next = true;
                    self.state.d.next = State::RBlk;
                    if self.nvm_on.val() {
                        self.state.d.next = State::RPslot;
                    }
                }
            }
            State::RBlk => {
                // The freed page's block: one valid page fewer, full as it was.
                self.region.next = self.r_blk.val();
                self.index.next = Index::RelBlock;
                self.low.next = Low::Bump16;
                self.low_down.next = true;
                self.fill_blk.next = true;
                if self.rmw_done.val() {
                    self.state.d.next = State::RDevv;
                }
            }
            State::RDevv => {
                // Its device's valid pages, minus one.
                self.region.next = self.r_devv.val();
                self.index.next = Index::RelDevice;
                self.low.next = Low::Bump24;
                self.low_down.next = true;
                if self.rmw_done.val() {
                    self.state.d.next = State::RPushPid;
                }
            }
            State::RPushPid => {
                self.mem_write.next = true;
                self.region.next = self.r_pids.val();
                self.index.next = Index::PidSp;
                self.low.next = Low::OldPid;
                if self.req_taken.val() {
                    self.pid_sp.d.next = (self.pid_sp.q.val() + 1) & self.count_mask.val();
                    self.state.d.next = self.ret_state.val();
                    if self.rel_has_entry.q.val() {
                        self.state.d.next = State::REntry;
                    }
                }
            }
            State::REntry => {
                // Its index entry, queued for the cleaner unless it is already.
                self.region.next = self.r_entry.val();
                self.index.next = Index::RelEntry;
                self.low.next = Low::Word;
                self.fill_entry.next = true;
                self.en_queued.next = true;
                if self.done.val() & self.rd_e_queued.val() {
                    // Queued already: nothing to write.
                    self.rmw_write.d.next = false;
                    self.state.d.next = self.ret_state.val();
                }
                if self.rmw_done.val() {
                    self.state.d.next = State::RPushStale;
                }
            }
            State::RPushStale => {
                self.mem_write.next = true;
                self.region.next = self.r_stale.val();
                self.index.next = Index::StaleTail;
                self.low.next = Low::RelEntry;
                if self.req_taken.val() {
                    self.stale_tail.d.next = (self.stale_tail.q.val() + 1) & self.ring_mask.val();
                    self.ev.next = true;
                    self.ev_id.next = self.ev_backlog.val();
                    self.state.d.next = self.ret_state.val();
                }
            }

            // --- READ and TRIM --------------------------------------------------------------
            State::RdReadL2p => {
                self.mem_read.next = true;
                self.region.next = self.r_l2p.val();
                self.index.next = Index::Lpa;
                if self.done.val() {
                    self.old_pid.d.next = self.rd_l2p_pid.val();
                    self.status.d.next = self.st_unmapped.val();
                    self.state.d.next = State::Respond;
                    if self.rd_mapped.val() {
                        self.state.d.next = State::RdReadPage;
                    }
                }
            }
            State::RdReadPage => {
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::OldPid;
                if self.done.val() {
                    self.status.d.next = self.st_mapped.val();
                    self.value.d.next = self.rd_addr.val();
                    self.state.d.next = State::Respond;
                    if self.nvm_on.val() {
                        self.slot.d.next = self.rd_slot.val();
                        self.fill_dev_of.d.next = bit_cast::<3, ADDR_BITS>(
                            self.rd_ppa.val() >> (self.page_field.val() + self.block_field.val()),
                        );
                        // Served from its slot if cached, else brought in.
                        self.state.d.next = State::RdPslot;
                        if self.rd_in_nvm.val() {
                            self.state.d.next = State::RdTouch;
                        }
                    }
                }
            }
            State::TReadL2p => {
                self.mem_read.next = true;
                self.region.next = self.r_l2p.val();
                self.index.next = Index::Lpa;
                if self.done.val() {
                    self.old_pid.d.next = self.rd_l2p_pid.val();
                    self.status.d.next = self.st_unmapped.val();
                    self.state.d.next = State::Respond;
                    if self.rd_mapped.val() {
                        self.ret.d.next = Return::TUnmap;
                        self.state.d.next = State::RReadPage;
                    }
                }
            }
            State::TUnmap => {
                self.mem_write.next = true;
                self.region.next = self.r_l2p.val();
                self.index.next = Index::Lpa;
                if self.req_taken.val() {
                    self.ev.next = true;
                    self.ev_id.next = self.ev_mapped_lpas.val();
                    self.ev_down.next = true;
                    self.status.d.next = self.st_trimmed.val();
                    self.state.d.next = State::Respond;
                }
            }

            // --- SYNC, and the cleaner: one queued entry per step ---------------------------
            State::SyncLoop => {
                self.state.d.next = State::CReadStale;
                if !self.backlog.q.val() {
                    self.syncing.d.next = false;
                    self.status.d.next = self.st_done.val();
                    self.state.d.next = State::Respond;
                }
            }
            State::CReadStale => {
                self.mem_read.next = true;
                self.region.next = self.r_stale.val();
                self.index.next = Index::StaleHead;
                if self.done.val() {
                    self.entry.d.next = self.rdata.val().get_bits::<W_STALE_ENTRY>(self.f_stale_entry.val().index())
                        & self.entry_mask.val();
                    self.stale_head.d.next = (self.stale_head.q.val() + 1) & self.ring_mask.val();
                    self.ev.next = true;
                    self.ev_id.next = self.ev_backlog.val();
                    self.ev_down.next = true;
                    self.state.d.next = State::CReadEntry;
                }
            }
            State::CReadEntry => {
                self.mem_read.next = true;
                self.region.next = self.r_entry.val();
                self.index.next = Index::Entry;
                if self.done.val() {
                    self.e_valid.d.next = self.rd_e_valid.val();
                    self.e_ver.d.next = self.rd_e_ver.val();
                    self.e_pid.d.next = self.rd_e_pid.val();
                    self.stale_hit.d.next = true;
                    self.state.d.next = State::CWriteEntry;
                    if self.rd_e_valid.val() {
                        self.state.d.next = State::CReadPage;
                    }
                }
            }
            State::CReadPage => {
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::EPid;
                if self.done.val() {
                    self.stale_hit.d.next = !self.hit_live.val();
                    self.state.d.next = State::CWriteEntry;
                }
            }
            State::CWriteEntry => {
                // No longer queued; the rest as it was read.
                self.mem_write.next = true;
                self.region.next = self.r_entry.val();
                self.index.next = Index::Entry;
                self.low.next = Low::EPid;
                self.fill_entry.next = true;
                self.en_queued.next = false;
                self.en_valid.next = self.e_valid.q.val();
                self.en_ver.next = self.e_ver.q.val();
                if self.req_taken.val() {
                    self.state.d.next = State::CDone;
                    if self.stale_hit.q.val() {
                        self.state.d.next = State::CDeref;
                    }
                }
            }
            State::CDeref => {
                self.idx_cmd.valid.next = true;
                self.idx_cmd.op.next = self.idx_deref_entry.val();
                if self.idx_cmd.ready.val() {
                    self.state.d.next = State::CDerefWait;
                }
            }
            State::CDerefWait => {
                self.idx_rsp.ready.next = true;
                if self.idx_rsp.valid.val() {
                    self.ev.next = true;
                    self.ev_id.next = self.ev_cleaned.val();
                    self.state.d.next = State::CDone;
                }
            }
            State::CDone => {
                self.cleaned.next = !self.syncing.q.val();
                self.state.d.next = State::Idle;
                if self.syncing.q.val() {
                    self.state.d.next = State::SyncLoop;
                }
            }

            // --- The NVM cache: a slot for the write's new copy or the read's
            // page (`is_read`): a never-used one, a freed one, or CLOCK's victim -----
            State::NFill => {
                self.state.d.next = State::NSweep;
                if self.has_free_slot.val() {
                    self.state.d.next = State::NPop;
                    if self.sfresh.q.val() != self.cfg.nvm_slots.val() {
                        self.slot.d.next = bit_cast::<ADDR_BITS, NVM_SLOT_BITS>(self.sfresh.q.val());
                        self.sfresh.d.next = self.sfresh.q.val() + 1;
                        self.state.d.next = State::NSlot;
                    }
                }
            }
            State::NPop => {
                self.mem_read.next = true;
                self.region.next = self.r_sfree.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::SFreeHead;
                if self.done.val() {
                    self.slot.d.next = self.rdata.val().get_bits::<W_SFREE_SLOT>(self.f_sfree_slot.val().index());
                    self.shead.d.next = self.shead.q.val() + 1;
                    if self.shead.q.val() == self.slots_m1.val() {
                        self.shead.d.next = 0.into();
                    }
                    self.scount.d.next = self.scount.q.val() - 1;
                    self.state.d.next = State::NSlot;
                }
            }
            State::NSweep => {
                // Every slot is in use: the hand clears referenced bits and
                // stops at the first slot whose bit is clear.
                self.mem_read.next = true;
                self.region.next = self.r_slot.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::Hand;
                if self.done.val() {
                    self.slot.d.next = self.hand.q.val();
                    self.hand.d.next = self.hand.q.val() + 1;
                    if self.hand.q.val() == self.slots_m1.val() {
                        self.hand.d.next = 0.into();
                    }
                    self.wb_pid.d.next = self.rd_sl_pid.val();
                    self.state.d.next = State::NVictim;
                    if self.rd_sl_ref.val() {
                        self.state.d.next = State::NClear;
                    }
                }
            }
            State::NClear => {
                self.mem_write.next = true;
                self.region.next = self.r_slot.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::Slot;
                self.low.next = Low::Word;
                self.fill_slot.next = true;
                self.sl_ref.next = false;
                if self.req_taken.val() {
                    self.state.d.next = State::NSweep;
                }
            }
            State::NVictim => {
                // Dirty (only in the NVM): written back first.
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::WbPid;
                if self.done.val() {
                    self.state.d.next = State::NEvict;
                    if self.rd_in_nvm.val() {
                        self.state.d.next = State::NVictimDev;
                    }
                }
            }
            State::NVictimDev => {
                // The write-back: programming (with GC) on the page's device.
                self.mem_read.next = true;
                self.region.next = self.r_pslot.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::WbPid;
                if self.done.val() {
                    self.wb_dev.d.next = self.rd_ps_dev.val();
                    self.wb.d.next = true;
                    self.state.d.next = State::FReadDev;
                }
            }
            State::WbPage => {
                // The written-back page's record: its flash PPA.
                self.region.next = self.r_page.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::WbPid;
                self.low.next = Low::ProgPpa;
                self.fill_page.next = true;
                self.pg_in_nvm.next = false;
                if self.rmw_done.val() {
                    self.state.d.next = State::WbMove;
                }
            }
            State::WbMove => {
                self.mv.valid.next = true;
                self.mv.from.next = self.slot_addr.val();
                if self.mv.ready.val() {
                    self.wb.d.next = false;
                    self.state.d.next = State::NEvict;
                }
            }
            State::NEvict => {
                // The victim's page id is cached no more.
                self.mem_write.next = true;
                self.region.next = self.r_pslot.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::WbPid;
                self.low.next = Low::Zero;
                self.fill_pslot.next = true;
                if self.req_taken.val() {
                    self.state.d.next = State::NSlot;
                }
            }
            State::NSlot => {
                self.mem_write.next = true;
                self.region.next = self.r_slot.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::Slot;
                self.low.next = Low::Pid;
                if self.is_read.val() {
                    self.low.next = Low::OldPid;
                }
                self.fill_slot.next = true;
                self.sl_ref.next = true;
                if self.req_taken.val() {
                    self.state.d.next = State::NPslot;
                }
            }
            State::NPslot => {
                // Cached: a write's copy on its home device (then its valid
                // pages, in `FDevv`), or a read's clean copy.
                self.mem_write.next = true;
                self.region.next = self.r_pslot.val();
                self.index.next = Index::Pid;
                self.nvm_low_on.next = true;
                self.nvm_low.next = NvmLow::Slot;
                self.fill_pslot.next = true;
                self.ps_cached.next = true;
                self.ps_dev.next = self.home.val();
                if self.is_read.val() {
                    self.index.next = Index::OldPid;
                    self.ps_dev.next = self.fill_dev_of.q.val();
                }
                if self.req_taken.val() {
                    self.state.d.next = State::FDevv;
                    if self.is_read.val() {
                        self.state.d.next = State::RdAgain;
                    }
                }
            }
            State::RdPslot => {
                self.mem_read.next = true;
                self.region.next = self.r_pslot.val();
                self.index.next = Index::OldPid;
                if self.done.val() {
                    self.slot.d.next = self.rd_ps_slot.val();
                    self.state.d.next = State::NFill;
                    if self.rd_ps_cached.val() {
                        self.state.d.next = State::RdTouch;
                    }
                }
            }
            State::RdTouch => {
                self.mem_write.next = true;
                self.region.next = self.r_slot.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::Slot;
                self.low.next = Low::OldPid;
                self.fill_slot.next = true;
                self.sl_ref.next = true;
                if self.req_taken.val() {
                    self.state.d.next = State::Respond;
                }
            }
            State::RdAgain => {
                // Where the page is now: a write-back's GC may have moved it.
                self.mem_read.next = true;
                self.region.next = self.r_page.val();
                self.index.next = Index::OldPid;
                if self.done.val() {
                    self.value.d.next = self.rd_addr.val();
                    self.state.d.next = State::Respond;
                }
            }
            State::WHitPslot => {
                self.mem_read.next = true;
                self.region.next = self.r_pslot.val();
                self.index.next = Index::EPid;
                if self.done.val() {
                    self.slot.d.next = self.rd_ps_slot.val();
                    self.state.d.next = State::WMapDup;
                    if self.old_valid.q.val() {
                        self.ret.d.next = Return::WMapDup;
                        self.state.d.next = State::RReadPage;
                    }
                    if self.rd_ps_cached.val() {
                        self.state.d.next = State::WHitTouch;
                    }
                }
            }
            State::WHitTouch => {
                self.mem_write.next = true;
                self.region.next = self.r_slot.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::Slot;
                self.low.next = Low::EPid;
                self.fill_slot.next = true;
                self.sl_ref.next = true;
                if self.req_taken.val() {
                    self.state.d.next = State::WMapDup;
                    if self.old_valid.q.val() {
                        self.ret.d.next = Return::WMapDup;
                        self.state.d.next = State::RReadPage;
                    }
                }
            }
            State::WReadOldSlot => {
                // `word` still holds the old page's record.
                self.mem_read.next = true;
                self.region.next = self.r_pslot.val();
                self.index.next = Index::OldPid;
                if self.done.val() {
                    self.old_frees_home.d.next = (self.pg_rc.val() == 1) & (self.rd_ps_dev.val() == self.home.val());
                    self.state.d.next = State::WPutWait;
                    if self.op.q.val() == self.op_write_unique.val() {
                        self.state.d.next = State::WRoom;
                    }
                }
            }
            State::RPslot => {
                // A cached copy gives its slot back; one only in the NVM frees
                // nothing on the flash, but its device owes one page fewer.
                self.mem_read.next = true;
                self.region.next = self.r_pslot.val();
                self.index.next = Index::OldPid;
                if self.done.val() {
                    self.slot.d.next = self.rd_ps_slot.val();
                    self.state.d.next = State::RBlk;
                    if self.rd_ps_cached.val() {
                        self.state.d.next = State::RPushSlot;
                    }
                    if self.in_nvm.q.val() {
                        self.rel_block.d.next =
                            bit_cast::<BLOCK_BITS, 3>(self.rd_ps_dev.val()) << self.block_field.val();
                    }
                }
            }
            State::RPushSlot => {
                self.mem_write.next = true;
                self.region.next = self.r_sfree.val();
                self.nvm_idx_on.next = true;
                self.nvm_index.next = NvmIndex::SFreeTail;
                self.nvm_low_on.next = true;
                self.nvm_low.next = NvmLow::Slot;
                if self.req_taken.val() {
                    self.stail.d.next = self.stail.q.val() + 1;
                    if self.stail.q.val() == self.slots_m1.val() {
                        self.stail.d.next = 0.into();
                    }
                    self.scount.d.next = self.scount.q.val() + 1;
                    self.state.d.next = State::RBlk;
                    if self.in_nvm.q.val() {
                        self.state.d.next = State::RDevv;
                    }
                }
            }
            State::GPslot => {
                self.mem_read.next = true;
                self.region.next = self.r_pslot.val();
                self.index.next = Index::EPid;
                if self.done.val() {
                    self.drop_slot.d.next = self.rd_ps_slot.val();
                    self.prog_gc.d.next = true;
                    self.state.d.next = State::PStart;
                    if self.rd_ps_cached.val() {
                        self.prog_gc.d.next = false;
                        self.state.d.next = State::GDrop;
                    }
                }
            }
            State::GDrop => {
                // Its record follows the slot, which holds the original now.
                self.region.next = self.r_page.val();
                self.index.next = Index::EPid;
                self.nvm_low_on.next = true;
                self.nvm_low.next = NvmLow::DropSlot;
                self.fill_page.next = true;
                self.pg_in_nvm.next = true;
                if self.rmw_done.val() {
                    self.state.d.next = State::GDropMove;
                }
            }
            State::GDropMove => {
                // The host's copy into the slot is a no-op that keeps its map.
                self.mv.valid.next = true;
                self.mv.to.next = self.drop_addr.val();
                if self.mv.ready.val() {
                    self.state.d.next = State::GNext;
                }
            }
        }

        // --- Without the cache (not built in, or no slots) its states are
        // never entered; saying so here lets synthesis remove them (its FSM
        // extraction then finds them unreachable), so that a build without
        // the cache keeps none of its logic -------------------------------------------
        self.in_cache_state.next = (self.state.q.val() == State::NFill)
            | (self.state.q.val() == State::NPop)
            | (self.state.q.val() == State::NSweep)
            | (self.state.q.val() == State::NClear)
            | (self.state.q.val() == State::NVictim)
            | (self.state.q.val() == State::NVictimDev)
            | (self.state.q.val() == State::WbPage)
            | (self.state.q.val() == State::WbMove)
            | (self.state.q.val() == State::NEvict)
            | (self.state.q.val() == State::NSlot)
            | (self.state.q.val() == State::NPslot)
            | (self.state.q.val() == State::RdPslot)
            | (self.state.q.val() == State::RdTouch)
            | (self.state.q.val() == State::RdAgain)
            | (self.state.q.val() == State::WHitPslot)
            | (self.state.q.val() == State::WHitTouch)
            | (self.state.q.val() == State::WReadOldSlot)
            | (self.state.q.val() == State::RPslot)
            | (self.state.q.val() == State::RPushSlot)
            | (self.state.q.val() == State::GPslot)
            | (self.state.q.val() == State::GDrop)
            | (self.state.q.val() == State::GDropMove);
        if self.in_cache_state.val() & !self.nvm_on.val() {
            self.state.d.next = State::Idle;
        }

        // --- The GC scan's judgement of the block read the clock before: full,
        // not all valid, and fewer valid pages than the best so far (the
        // lowest block wins ties: blocks are judged in order) ----------------
        self.wd_blk_valid.next =
            self.word.q.val().get_bits::<W_BLK_VALID>(self.f_blk_valid.val().index()) & self.pages_mask.val();
        // A candidate the clock after, which beats the best the clock after
        // that (two short paths instead of one long one).
        self.cand.d.next = self.judge.q.val()
            & self.word.q.val().get_bit(self.f_blk_full.val().index())
            & (self.wd_blk_valid.val() < self.ppb.val());
        self.cand_block.d.next = self.judged.q.val();
        self.cand_valid.d.next = self.wd_blk_valid.val();
        if self.cand.q.val() & (!self.have_victim.q.val() | (self.cand_valid.q.val() < self.victim_valid.q.val())) {
            self.have_victim.d.next = true;
            self.victim.d.next = self.cand_block.q.val();
            self.victim_valid.d.next = self.cand_valid.q.val();
        }

        // --- A page id read ahead and not needed, given back: the stack
        // pointer or the fresh counter moves back to where `APid` found it --------
        if self.give_back_pid.val() {
            if self.pid_popped.q.val() {
                self.pid_sp.d.next = (self.pid_sp.q.val() + 1) & self.count_mask.val();
            } else {
                self.next_fresh.d.next = (self.next_fresh.q.val() + self.minus_one.val()) & self.count_mask.val();
            }
        }

        // --- The request stage -------------------------------------------------------------
        // Not offered again the clock after the memory took it (the state
        // asks until then).
        self.rq_valid.d.next =
            (self.mem_write.val() | (self.mem_read.val() & !self.pending.q.val())) & !self.req_taken.val();
        self.rq_write.d.next = self.mem_write.val();
        self.rq_region.d.next = self.region.val();
        self.rq_index.d.next = self.index.val();
        self.rq_low.d.next = self.low.val();
        self.rq_low_down.d.next = self.low_down.val();
        self.rq_fill_mapped.d.next = self.fill_mapped.val();
        self.rq_fill_page.d.next = self.fill_page.val();
        self.rq_fill_entry.d.next = self.fill_entry.val();
        self.rq_fill_blk.d.next = self.fill_blk.val();
        self.rq_fill_dev.d.next = self.fill_dev.val();
        self.rq_pg_rc.d.next = self.pg_rc.val();
        self.rq_pg_ver.d.next = self.pg_ver.val();
        self.rq_pg_has_entry.d.next = self.pg_has_entry.val();
        self.rq_pg_entry.d.next = self.pg_entry.val();
        self.rq_en_queued.d.next = self.en_queued.val();
        self.rq_en_valid.d.next = self.en_valid.val();
        self.rq_en_ver.d.next = self.en_ver.val();
        self.rq_blk_full.d.next = self.blk_full.val();
        self.rq_pg_in_nvm.d.next = self.pg_in_nvm.val();
        self.rq_nvm_idx_on.d.next = self.nvm_idx_on.val();
        self.rq_nvm_index.d.next = self.nvm_index.val();
        self.rq_nvm_low_on.d.next = self.nvm_low_on.val();
        self.rq_nvm_low.d.next = self.nvm_low.val();
        self.rq_fill_slot.d.next = self.fill_slot.val();
        self.rq_sl_ref.d.next = self.sl_ref.val();
        self.rq_fill_pslot.d.next = self.fill_pslot.val();
        self.rq_ps_cached.d.next = self.ps_cached.val();
        self.rq_ps_dev.d.next = self.ps_dev.val();
        if self.request_stage.val() {
            self.u_valid.next = self.rq_valid.q.val();
            self.u_write.next = self.rq_write.q.val();
            self.u_region.next = self.rq_region.q.val();
            self.u_index.next = self.rq_index.q.val();
            self.u_low.next = self.rq_low.q.val();
            self.u_low_down.next = self.rq_low_down.q.val();
            self.u_fill_mapped.next = self.rq_fill_mapped.q.val();
            self.u_fill_page.next = self.rq_fill_page.q.val();
            self.u_fill_entry.next = self.rq_fill_entry.q.val();
            self.u_fill_blk.next = self.rq_fill_blk.q.val();
            self.u_fill_dev.next = self.rq_fill_dev.q.val();
            self.u_pg_rc.next = self.rq_pg_rc.q.val();
            self.u_pg_ver.next = self.rq_pg_ver.q.val();
            self.u_pg_has_entry.next = self.rq_pg_has_entry.q.val();
            self.u_pg_entry.next = self.rq_pg_entry.q.val();
            self.u_en_queued.next = self.rq_en_queued.q.val();
            self.u_en_valid.next = self.rq_en_valid.q.val();
            self.u_en_ver.next = self.rq_en_ver.q.val();
            self.u_blk_full.next = self.rq_blk_full.q.val();
            self.u_pg_in_nvm.next = self.rq_pg_in_nvm.q.val();
            self.u_nvm_idx_on.next = self.rq_nvm_idx_on.q.val();
            self.u_nvm_index.next = self.rq_nvm_index.q.val();
            self.u_nvm_low_on.next = self.rq_nvm_low_on.q.val();
            self.u_nvm_low.next = self.rq_nvm_low.q.val();
            self.u_fill_slot.next = self.rq_fill_slot.q.val();
            self.u_sl_ref.next = self.rq_sl_ref.q.val();
            self.u_fill_pslot.next = self.rq_fill_pslot.q.val();
            self.u_ps_cached.next = self.rq_ps_cached.q.val();
            self.u_ps_dev.next = self.rq_ps_dev.q.val();
        } else {
            self.u_valid.next = self.mem_write.val() | (self.mem_read.val() & !self.pending.q.val());
            self.u_write.next = self.mem_write.val();
            self.u_region.next = self.region.val();
            self.u_index.next = self.index.val();
            self.u_low.next = self.low.val();
            self.u_low_down.next = self.low_down.val();
            self.u_fill_mapped.next = self.fill_mapped.val();
            self.u_fill_page.next = self.fill_page.val();
            self.u_fill_entry.next = self.fill_entry.val();
            self.u_fill_blk.next = self.fill_blk.val();
            self.u_fill_dev.next = self.fill_dev.val();
            self.u_pg_rc.next = self.pg_rc.val();
            self.u_pg_ver.next = self.pg_ver.val();
            self.u_pg_has_entry.next = self.pg_has_entry.val();
            self.u_pg_entry.next = self.pg_entry.val();
            self.u_en_queued.next = self.en_queued.val();
            self.u_en_valid.next = self.en_valid.val();
            self.u_en_ver.next = self.en_ver.val();
            self.u_blk_full.next = self.blk_full.val();
            self.u_pg_in_nvm.next = self.pg_in_nvm.val();
            self.u_nvm_idx_on.next = self.nvm_idx_on.val();
            self.u_nvm_index.next = self.nvm_index.val();
            self.u_nvm_low_on.next = self.nvm_low_on.val();
            self.u_nvm_low.next = self.nvm_low.val();
            self.u_fill_slot.next = self.fill_slot.val();
            self.u_sl_ref.next = self.sl_ref.val();
            self.u_fill_pslot.next = self.fill_pslot.val();
            self.u_ps_cached.next = self.ps_cached.val();
            self.u_ps_dev.next = self.ps_dev.val();
        }

        // --- The address: a region and what indexes it -----------------------------------
        match self.u_index.val() {
            Index::Cursor => self.index_value.next = self.cursor.q.val(),
            Index::Lpa => self.index_value.next = self.lpa.q.val(),
            Index::OldPid => self.index_value.next = self.old_pid.q.val(),
            Index::EPid => self.index_value.next = self.e_pid.q.val(),
            Index::Pid => self.index_value.next = self.pid.q.val(),
            Index::Entry => self.index_value.next = bit_cast::<ADDR_BITS, ENTRY_BITS>(self.entry.q.val()),
            Index::RelEntry => self.index_value.next = bit_cast::<ADDR_BITS, ENTRY_BITS>(self.rel_entry.q.val()),
            Index::RelBlock => self.index_value.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(self.rel_block.q.val()),
            Index::RelDevice => {
                self.index_value.next =
                    bit_cast::<ADDR_BITS, BLOCK_BITS>(self.rel_block.q.val() >> self.block_field.val())
            }
            Index::Home => self.index_value.next = bit_cast::<ADDR_BITS, 3>(self.home.val()),
            Index::FreeHead => {
                self.index_value.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(self.home_base.val() | self.dev_head.q.val())
            }
            Index::FreeTail => {
                self.index_value.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(
                    self.home_base.val() | ((self.dev_head.q.val() + self.dev_free.q.val()) & self.bpd_m1.val()),
                )
            }
            Index::DevOpen => self.index_value.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(self.dev_open.q.val()),
            Index::Victim => self.index_value.next = bit_cast::<ADDR_BITS, BLOCK_BITS>(self.victim.q.val()),
            Index::CurPpa => self.index_value.next = self.cur_ppa.val(),
            Index::PidSp => self.index_value.next = self.pid_sp.q.val(),
            Index::StaleHead => {
                self.index_value.next = bit_cast::<ADDR_BITS, ENTRY_BITS>(
                    bit_cast::<ENTRY_BITS, RING_BITS>(self.stale_head.q.val()) & self.entry_mask.val(),
                )
            }
            Index::StaleTail => {
                self.index_value.next = bit_cast::<ADDR_BITS, ENTRY_BITS>(
                    bit_cast::<ENTRY_BITS, RING_BITS>(self.stale_tail.q.val()) & self.entry_mask.val(),
                )
            }
        }
        // The cache's own indexes, beside `Index` (so that a build without
        // the cache decodes `Index` as one before it did).
        self.nvm_index_value.next = self.slot.q.val();
        match self.u_nvm_index.val() {
            NvmIndex::Slot => self.nvm_index_value.next = self.slot.q.val(),
            NvmIndex::Hand => self.nvm_index_value.next = self.hand.q.val(),
            NvmIndex::SFreeHead => self.nvm_index_value.next = self.shead.q.val(),
            NvmIndex::SFreeTail => self.nvm_index_value.next = self.stail.q.val(),
            NvmIndex::WbPid => self.nvm_index_value.next = self.wb_pid.q.val(),
        }
        if self.u_nvm_idx_on.val() {
            self.index_value.next = self.nvm_index_value.val();
        }
        self.mem.req_addr.next = (bit_cast::<MEM_ADDR_BITS, 4>(self.u_region.val()) << self.region_at.val())
            | bit_cast::<MEM_ADDR_BITS, ADDR_BITS>(self.index_value.val());

        // --- The word to write: the field at bit 0, then the region's others --------------
        self.bump.next = self.word.q.val().get_bits::<LOW_BITS>(0) + 1;
        if self.u_low_down.val() {
            self.bump.next = self.word.q.val().get_bits::<LOW_BITS>(0) + self.minus_one.val();
        }
        match self.u_low.val() {
            Low::Zero => self.low_value.next = 0.into(),
            Low::Word => self.low_value.next = self.word.q.val().get_bits::<LOW_BITS>(0),
            Low::Bump24 => self.low_value.next = self.bump.val(),
            Low::Bump16 => {
                self.low_value.next =
                    bit_cast::<LOW_BITS, BLOCK_BITS>(bit_cast::<BLOCK_BITS, LOW_BITS>(self.bump.val()))
            }
            Low::Pid => self.low_value.next = self.pid.q.val(),
            Low::EPid => self.low_value.next = self.e_pid.q.val(),
            Low::OldPid => self.low_value.next = self.old_pid.q.val(),
            Low::ProgPpa => self.low_value.next = self.prog_ppa.q.val(),
            Low::Entry => self.low_value.next = bit_cast::<LOW_BITS, ENTRY_BITS>(self.entry.q.val()),
            Low::RelEntry => self.low_value.next = bit_cast::<LOW_BITS, ENTRY_BITS>(self.rel_entry.q.val()),
            Low::DevHead => self.low_value.next = bit_cast::<LOW_BITS, BLOCK_BITS>(self.dev_head.q.val()),
            Low::CursorNext => {
                self.low_value.next =
                    bit_cast::<LOW_BITS, BLOCK_BITS>(bit_cast::<BLOCK_BITS, ADDR_BITS>(self.cursor.q.val() + 1))
            }
            Low::Victim => self.low_value.next = bit_cast::<LOW_BITS, BLOCK_BITS>(self.victim.q.val()),
        }
        self.nvm_low_value.next = self.slot.q.val();
        match self.u_nvm_low.val() {
            NvmLow::Slot => self.nvm_low_value.next = self.slot.q.val(),
            NvmLow::DropSlot => self.nvm_low_value.next = self.drop_slot.q.val(),
            NvmLow::WbPid => self.nvm_low_value.next = self.wb_pid.q.val(),
        }
        if self.u_nvm_low_on.val() {
            self.low_value.next = self.nvm_low_value.val();
        }
        // Every part is zero but the one region's (its flag is the only one set).
        self.part_mapped.next = 0.into();
        self.part_page.next = 0.into();
        self.part_entry.next = 0.into();
        self.part_blk.next = 0.into();
        self.part_dev.next = 0.into();
        self.part_slot.next = 0.into();
        self.part_pslot.next = 0.into();
        if self.u_fill_slot.val() {
            self.part_slot.next =
                bit_cast::<MEM_DATA_BITS, 1>(self.u_sl_ref.val().into()) << self.f_slot_referenced.val();
        }
        if self.u_fill_pslot.val() {
            self.part_pslot.next = (bit_cast::<MEM_DATA_BITS, 1>(self.u_ps_cached.val().into())
                << self.f_pslot_cached.val())
                | (bit_cast::<MEM_DATA_BITS, 3>(self.u_ps_dev.val()) << self.f_pslot_device.val());
        }
        if self.u_fill_mapped.val() {
            self.part_mapped.next = bits::<MEM_DATA_BITS>(1) << self.f_l2p_mapped.val();
        }
        if self.u_fill_page.val() {
            self.part_page.next = (bit_cast::<MEM_DATA_BITS, REFCOUNT_BITS>(self.u_pg_rc.val())
                << self.f_page_refcount.val())
                | (bit_cast::<MEM_DATA_BITS, VERSION_BITS>(self.u_pg_ver.val()) << self.f_page_version.val())
                | (bit_cast::<MEM_DATA_BITS, 1>(self.u_pg_has_entry.val().into()) << self.f_page_has_entry.val())
                | (bit_cast::<MEM_DATA_BITS, 1>(self.u_pg_in_nvm.val().into()) << self.f_page_in_nvm.val())
                | (bit_cast::<MEM_DATA_BITS, ENTRY_BITS>(self.u_pg_entry.val()) << self.f_page_entry.val());
        }
        if self.u_fill_entry.val() {
            self.part_entry.next = (bit_cast::<MEM_DATA_BITS, 1>(self.u_en_queued.val().into())
                << self.f_entry_queued.val())
                | (bit_cast::<MEM_DATA_BITS, 1>(self.u_en_valid.val().into()) << self.f_entry_valid.val())
                | (bit_cast::<MEM_DATA_BITS, VERSION_BITS>(self.u_en_ver.val()) << self.f_entry_version.val());
        }
        if self.u_fill_blk.val() {
            self.part_blk.next = bit_cast::<MEM_DATA_BITS, 1>(self.u_blk_full.val().into()) << self.f_blk_full.val();
        }
        if self.u_fill_dev.val() {
            self.part_dev.next = (bit_cast::<MEM_DATA_BITS, BLOCK_BITS>(self.dev_open.q.val())
                << self.f_dev_open.val())
                | (bit_cast::<MEM_DATA_BITS, BLOCK_BITS>(self.dev_written.q.val()) << self.f_dev_written.val())
                | (bit_cast::<MEM_DATA_BITS, BLOCK_BITS>(self.dev_free.q.val()) << self.f_dev_free.val());
        }
        self.mem.req_wdata.next = self.part_mapped.val()
            | self.part_page.val()
            | self.part_entry.val()
            | self.part_blk.val()
            | self.part_dev.val()
            | self.part_slot.val()
            | self.part_pslot.val()
            | bit_cast::<MEM_DATA_BITS, LOW_BITS>(self.low_value.val());

        // --- The memory port: one request outstanding ---------------------------------------
        self.mem.req_valid.next = self.u_valid.val();
        self.mem.req_write.next = self.u_write.val();
        if self.u_valid.val() & !self.u_write.val() & self.mem.req_ready.val() {
            self.pending.d.next = true;
        }
        if self.done.val() {
            self.pending.d.next = false;
            self.word.d.next = self.rdata.val();
        }
        self.counters.count.next = self.ev.val();
        self.counters.count_id.next = self.ev_id.val();
        self.counters.count_down.next = self.ev_down.val();

        if self.reset.val() {
            self.state.d.next = State::InitL2p;
            self.cursor.d.next = 0.into();
            self.pending.d.next = false;
            self.rq_valid.d.next = false;
            self.rmw_write.d.next = false;
            // A return point that is always a caller's (the proof of the
            // reference counts relies on it).
            self.ret.d.next = Return::APid;
            self.resetting.d.next = false;
            self.syncing.d.next = false;
            self.pid_sp.d.next = 0.into();
            self.next_fresh.d.next = 0.into();
            self.stale_head.d.next = 0.into();
            self.stale_tail.d.next = 0.into();
            self.sfresh.d.next = 0.into();
            self.shead.d.next = 0.into();
            self.stail.d.next = 0.into();
            self.scount.d.next = 0.into();
            self.hand.d.next = 0.into();
            self.wb.d.next = false;
        }
    }
}

/// The parameters of `hw/formal/ftl_refcount.v` for a controller built
/// without the NVM cache and with it: the states it names (`S_<State>`,
/// numbered as the emitted Verilog numbers them, in declaration order; a
/// unit test checks), and
/// `F_NVM_CACHE` (a PAGE record's `in_nvm` bit is kept by the writes that
/// keep the rest of the record with the cache, and written as 0 without).
macro_rules! formal_params {
    ($name:ident, $nvm:literal) => {
        pub const $name: &[(&str, u64)] = &[
            ("S_FDevv", State::FDevv as u64),
            ("S_GMoved", State::GMoved as u64),
            ("S_PBlk", State::PBlk as u64),
            ("S_RBlk", State::RBlk as u64),
            ("S_RDec", State::RDec as u64),
            ("S_RDevv", State::RDevv as u64),
            ("S_REntry", State::REntry as u64),
            ("S_RFree", State::RFree as u64),
            ("S_RPushPid", State::RPushPid as u64),
            ("S_RReadPage", State::RReadPage as u64),
            ("S_WUnlink", State::WUnlink as u64),
            ("S_WWriteHit", State::WWriteHit as u64),
            ("S_WWritePage", State::WWritePage as u64),
            ("S_WbPage", State::WbPage as u64),
            ("S_GDrop", State::GDrop as u64),
            ("S_RPslot", State::RPslot as u64),
            ("S_RPushSlot", State::RPushSlot as u64),
            ("F_NVM_CACHE", $nvm),
        ];
    };
}
formal_params!(FORMAL_PARAMS, 0);
formal_params!(FORMAL_PARAMS_NVM, 1);

#[cfg(test)]
mod tests {
    #[test]
    fn ftl_controller_is_synthesizable() {
        let verilog = crate::verilog::top_verilog(super::FtlController::default());
        let stats = ditto_synth::check_synthesizable(&verilog, "top").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.ebrs, 2, "the counters' block RAM: {stats:?}");
        assert!(stats.dffs > 500, "the controller's registers survive synthesis: {stats:?}");
    }
}
