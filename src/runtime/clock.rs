//! The person's time zone, read once at start (the window then words times without asking the
//! system: see `model::when`).

/// Finds the offset of the local time zone from UTC now (from `TZ` or `/etc/localtime`, through
/// the C library) and hands it to `model::when`.
pub fn init_time_zone() {
    // SAFETY: `time(NULL)` only reads the clock; `localtime_r` writes only to `tm`, which we own.
    let offset = unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&now, &mut tm).is_null() { 0 } else { tm.tm_gmtoff }
    };
    crate::model::when::set_utc_offset(offset.clamp(-86_400, 86_400) as i32);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_offset_follows_tz() {
        // Run in a child process: TZ is read once per process by the C library.
        if std::env::var_os("SIDEKICKS_CLOCK_CHILD").is_some() {
            super::init_time_zone();
            println!("offset={}", crate::model::when::utc_offset());
            return;
        }
        let exe = std::env::current_exe().unwrap();
        for (tz, offset) in [("UTC0", 0), ("ABC-3", 10_800), ("XYZ+5", -18_000)] {
            let out = std::process::Command::new(&exe)
                .args(["--exact", "runtime::clock::tests::the_offset_follows_tz", "--nocapture"])
                .env("SIDEKICKS_CLOCK_CHILD", "1")
                .env("TZ", tz)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains(&format!("offset={offset}\n")), "TZ={tz}: {text}");
        }
    }
}
