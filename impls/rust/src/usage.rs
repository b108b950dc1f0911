//! The process's CPU time (user and kernel) and minor page faults over a timed region, read
//! with getrusage(RUSAGE_SELF) (every thread, ended ones included), so each result says where
//! its time went: `extra.user_ns`, `extra.sys_ns`, `extra.minor_faults`.

use crate::protocol::Sample;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub user_ns: u64,
    pub sys_ns: u64,
    pub minor_faults: u64,
}

impl Usage {
    pub fn now() -> Usage {
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return Usage::default();
        }
        let ns = |time: libc::timeval| time.tv_sec as u64 * 1_000_000_000 + time.tv_usec as u64 * 1000;
        Usage { user_ns: ns(usage.ru_utime), sys_ns: ns(usage.ru_stime), minor_faults: usage.ru_minflt as u64 }
    }

    /// What was used between `earlier` and this reading.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
        }
    }
}

/// Runs `work`, returning its result and what the process used meanwhile.
pub fn measured<T>(work: impl FnOnce() -> T) -> (T, Usage) {
    let before = Usage::now();
    let result = work();
    (result, Usage::now().since(&before))
}

impl Sample {
    pub fn with_usage(self, usage: Usage) -> Sample {
        self.with("user_ns", usage.user_ns).with("sys_ns", usage.sys_ns).with("minor_faults", usage.minor_faults)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_fresh_pages_counts_minor_faults_and_cpu_time() {
        let (touched, usage) = measured(|| {
            // 64 MiB mapped fresh and written: the kernel faults its pages in.
            let mut pages = vec![0u8; 64 << 20];
            pages.iter_mut().step_by(4096).for_each(|b| *b = 1);
            std::hint::black_box(&pages);
            pages.len()
        });
        assert_eq!(touched, 64 << 20);
        assert!(usage.minor_faults >= 32, "{usage:?}");
        assert!(usage.user_ns + usage.sys_ns > 0, "{usage:?}");
    }
}
