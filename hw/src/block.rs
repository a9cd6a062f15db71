//! [`logic_block!`]: a RustHDL block declared once, with its `Default`.
//!
//! RustHDL needs every field of a block built (`Default` for ports,
//! flip-flops and sub-blocks), and a `Constant` has no default: it must be
//! given its value. Written by hand that is a second list of every field.
//! This macro takes the struct as written, with its constants (and their
//! values) in a `constants { ... }` section after it, and writes the struct
//! and a `Default` that builds every field with `Default::default()` and
//! every constant with its value.
//!
//! ```
//! use ditto_hw::logic_block;
//! use rust_hdl::prelude::*;
//!
//! logic_block! {
//!     /// A counter that wraps after `last`.
//!     #[derive(LogicBlock)]
//!     pub struct Wrap {
//!         pub clock: Signal<In, Clock>,
//!         pub count: Signal<Out, Bits<8>>,
//!         counter: DFF<Bits<8>>,
//!     }
//!     constants {
//!         last: Constant<Bits<8>> = Constant::new(bits(99)),
//!     }
//! }
//!
//! impl Logic for Wrap {
//!     #[hdl_gen]
//!     fn update(&mut self) {
//!         dff_setup!(self, clock, counter);
//!         self.count.next = self.counter.q.val();
//!         if self.counter.q.val() == self.last.val() {
//!             self.counter.d.next = 0.into();
//!         } else {
//!             self.counter.d.next = self.counter.q.val() + 1;
//!         }
//!     }
//! }
//!
//! let mut wrap = Wrap::default();
//! wrap.connect_all();
//! let verilog = generate_verilog(&wrap);
//! assert!(verilog.contains("localparam  last = 8'h63;"), "{verilog}");
//! ```
//! Const generics are written `struct Name<const N: usize, ...>`.

/// Declares a RustHDL block and its `Default` (see the [module](self) docs).
#[macro_export]
macro_rules! logic_block {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$(const $g:ident : $gt:ty),* $(,)?>)? {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $fty:ty ),* $(,)?
        }
        $(constants {
            $( $(#[$cmeta:meta])* $cfield:ident : $cty:ty = $cval:expr ),* $(,)?
        })?
    ) => {
        $(#[$meta])*
        $vis struct $name $(<$(const $g: $gt),*>)? {
            $( $(#[$fmeta])* $fvis $field: $fty, )*
            $($( $(#[$cmeta])* $cfield: $cty, )*)?
        }

        impl $(<$(const $g: $gt),*>)? Default for $name $(<$($g),*>)? {
            fn default() -> Self {
                Self {
                    $( $field: Default::default(), )*
                    $($( $cfield: $cval, )*)?
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use rust_hdl::prelude::*;

    logic_block! {
        /// Counts to `last` and wraps.
        #[derive(LogicBlock)]
        pub struct Wrap<const W: usize> {
            pub clock: Signal<In, Clock>,
            pub count: Signal<Out, Bits<W>>,
            value: DFF<Bits<W>>,
        }
        constants {
            /// The last value.
            last: Constant<Bits<W>> = Constant::new(bits(5)),
        }
    }

    impl<const W: usize> Logic for Wrap<W> {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, value);
            self.value.d.next = self.value.q.val() + 1;
            if self.value.q.val() == self.last.val() {
                self.value.d.next = 0.into();
            }
            self.count.next = self.value.q.val();
        }
    }

    #[test]
    fn a_declared_block_gets_its_constants_and_default_fields() {
        let block = Wrap::<8>::default();
        assert_eq!(block.last.val(), bits::<8>(5));
        let verilog = crate::verilog::top_verilog(block);
        assert!(verilog.contains("last = 8'h5;"), "{verilog}");
    }
}
