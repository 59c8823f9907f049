//! A runtime whose optional parts sit behind feature macros, the way large crates gate them.

use std::time::Duration;

macro_rules! cfg_timer {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "timer")]
            $item
        )*
    }
}

/// Logs a line when the `trace` feature is on.
#[macro_export]
macro_rules! trace_event {
    ($($arg:tt)*) => {
        if cfg!(feature = "trace") {
            eprintln!($($arg)*);
        }
    };
}

cfg_timer! {
    /// Fires a task once its deadline has passed.
    pub struct Timer {
        deadline: Duration,
    }

    impl Timer {
        /// A timer that fires after `deadline`.
        pub fn new(deadline: Duration) -> Timer {
            Timer { deadline }
        }
    }
}

pub struct Runtime {
    workers: usize,
}

impl Runtime {
    pub fn workers(&self) -> usize {
        self.workers
    }

    cfg_timer! {
        /// Sleeps on the runtime's clock.
        pub fn sleep(&self, duration: Duration) -> Timer {
            Timer::new(duration)
        }
    }
}

thread_local! {
    static CURRENT: std::cell::Cell<usize> = std::cell::Cell::new(0);
}
