//! When a message was written, in words: the civil date and time of a Unix time in the person's
//! time zone. Pure: the zone's offset is found once by the runtime (`set_utc_offset`), the clock is
//! read by the caller.

use std::sync::atomic::{AtomicI32, Ordering};

use super::config::Language;

/// The offset of the person's time zone from UTC, in seconds (set once at start).
static UTC_OFFSET: AtomicI32 = AtomicI32::new(0);

/// Sets the offset of the person's time zone (seconds east of UTC).
pub fn set_utc_offset(seconds: i32) {
    UTC_OFFSET.store(seconds, Ordering::Relaxed);
}

/// The offset set by [`set_utc_offset`].
pub fn utc_offset() -> i32 {
    UTC_OFFSET.load(Ordering::Relaxed)
}

/// The Unix time now, in seconds.
pub fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A civil date and time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    /// The year.
    pub year: i64,
    /// 1–12.
    pub month: u32,
    /// 1–31.
    pub day: u32,
    /// 0–23.
    pub hour: u32,
    /// 0–59.
    pub minute: u32,
}

/// The civil date and time of Unix time `at` shifted by `offset` seconds (proleptic Gregorian,
/// after Howard Hinnant's `civil_from_days`).
pub fn civil(at: i64, offset: i32) -> Civil {
    let local = at + i64::from(offset);
    let (days, secs) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    Civil { year, month, day, hour: (secs / 3600) as u32, minute: (secs % 3600 / 60) as u32 }
}

/// `at` in words for a tooltip, as seen at `now` in a zone `offset` seconds east of UTC: "Today
/// 14:05", "Yesterday 09:30", "2 Dec 2026 14:05".
pub fn text(lang: Language, at: u64, now: u64, offset: i32) -> String {
    let when = civil(at as i64, offset);
    let time = format!("{:02}:{:02}", when.hour, when.minute);
    let day = |c: Civil| (c.year, c.month, c.day);
    let today = civil(now as i64, offset);
    let yesterday = civil(now as i64 - 86_400, offset);
    let fr = lang == Language::Fr;
    if day(when) == day(today) {
        format!("{} {time}", if fr { "Aujourd’hui" } else { "Today" })
    } else if day(when) == day(yesterday) {
        format!("{} {time}", if fr { "Hier" } else { "Yesterday" })
    } else {
        const EN: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
        const FR: [&str; 12] =
            ["janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."];
        let month = if fr { FR } else { EN }[when.month as usize - 1];
        format!("{} {month} {} {time}", when.day, when.year)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_become_civil_dates() {
        // Checked against `date -u -d @…`.
        assert_eq!(civil(0, 0), Civil { year: 1970, month: 1, day: 1, hour: 0, minute: 0 });
        assert_eq!(civil(951_782_400, 0), Civil { year: 2000, month: 2, day: 29, hour: 0, minute: 0 });
        assert_eq!(civil(1_796_189_100, 0), Civil { year: 2026, month: 12, day: 2, hour: 5, minute: 25 });
        // An hour east of UTC, and a zone behind UTC before midnight.
        assert_eq!(civil(1_796_189_100, 3600).hour, 6);
        assert_eq!(civil(1_796_169_600, -3600), Civil { year: 2026, month: 12, day: 1, hour: 23, minute: 0 });
        assert_eq!(civil(-1, 0), Civil { year: 1969, month: 12, day: 31, hour: 23, minute: 59 });
    }

    #[test]
    fn times_read_as_today_yesterday_or_a_date() {
        let now = 1_796_189_100; // 2026-12-02 05:25 UTC
        assert_eq!(text(Language::En, now - 600, now, 0), "Today 05:15");
        assert_eq!(text(Language::Fr, now - 600, now, 0), "Aujourd’hui 05:15");
        assert_eq!(text(Language::En, now - 6 * 3600, now, 0), "Yesterday 23:25");
        // Past midnight in Paris, still yesterday in UTC.
        assert_eq!(text(Language::En, now - 6 * 3600, now, 3600), "Today 00:25");
        assert_eq!(text(Language::En, now - 40 * 86_400, now, 0), "23 Oct 2026 05:25");
        assert_eq!(text(Language::Fr, now - 40 * 86_400, now, 0), "23 oct. 2026 05:25");
    }
}
