//! Applications: what drives each flow.
//!
//! TCP applications (bulk, file) hand data to the client endpoint at their start time; the
//! rate-limited one (tcp_rate) hands a write at its start and one more each time its rate
//! allows, on its own timer (its writes are timed like a UDP source's packets). The receiving
//! application reads at once. UDP sources (constant bit rate, on-off) are driven by
//! their own timer events. All draws (start times, on/off periods) come from the flow's own
//! random stream.

use crate::model::AppSpec;
use sluice_core::rng::RngStream;
use sluice_core::{Dur, Time};

/// Run-time state of one application.
pub struct App {
    pub flow: u32,
    pub spec: AppSpec,
    pub start: Time,
    pub stop: Option<Time>,
    pub rng: RngStream,
    /// UDP: timer generation (bumped on stop) and on-off phase end.
    pub gen: u32,
    pub on_until: Time,
    pub stopped: bool,
    /// UDP: when the current train of packets began, and packets sent in it (on-off: the
    /// train's origin lies before its on period by the carried on time, see [`App::on_period`]).
    pub train_start: Time,
    pub train_sent: u64,
    /// On-off: on time since the last packet, carried over from earlier on periods.
    pub on_carry: Dur,
}

impl App {
    /// Begin a train of UDP packets at `t`: the flow's start, or the end of an off period.
    pub fn udp_train(&mut self, t: Time) {
        self.train_start = t;
        self.train_sent = 0;
    }

    /// When the train's `k`-th packet time ends: send times count from the train's start, so
    /// the rate holds exactly over the train however each gap rounds to the nanosecond (1-byte
    /// packets at 3 bit/s leave 8/3 s apart on average, not 2.667 s).
    fn due(&self, k: u64) -> Time {
        match self.spec {
            AppSpec::UdpCbr { rate, packet_size } | AppSpec::OnOff { rate, packet_size, .. } => self.train_start + rate.tx_time(packet_size as u64 * k),
            AppSpec::TcpRate { rate, write } => self.train_start + rate.tx_time(write * k),
            _ => unreachable!("only UDP and rate-limited TCP applications keep trains"),
        }
    }

    /// Constant bit rate: count a packet sent at `now` (the train's first leaves at its start)
    /// and say when the next one is due.
    pub fn udp_sent(&mut self, now: Time) -> Time {
        self.train_sent += 1;
        self.due(self.train_sent).max(now + Dur(1))
    }

    /// On-off: an on period runs from `t` until `until`. A packet is due each time the source
    /// has been on for one packet time since the previous one, the on time carrying over the
    /// off periods (the account ns-3's OnOffApplication keeps), so the long-run rate is
    /// `rate · mean_on / (mean_on + mean_off)` however short the periods are next to a packet
    /// time, and no packet leaves merely because an on period began.
    pub fn on_period(&mut self, t: Time, until: Time) {
        // The carried time is shorter than a packet time and was spent after the source's
        // start, so the origin is never before time zero.
        self.train_start = Time(t.0 - self.on_carry.0.min(t.0));
        self.train_sent = 0;
        self.on_until = until;
    }

    /// On-off: when to look again: the next packet's due time, or the end of the on period if
    /// that comes first.
    pub fn on_next(&self) -> Time {
        self.due(self.train_sent + 1).min(self.on_until)
    }

    /// On-off: whether a packet is due at `now`; if not, the on period is over.
    pub fn on_packet_due(&self, now: Time) -> bool {
        let due = self.due(self.train_sent + 1);
        due <= now && due <= self.on_until
    }

    /// On-off: count a packet sent.
    pub fn on_sent(&mut self) {
        self.train_sent += 1;
    }

    /// On-off: the on period is over: carry the on time since the last packet (or since the
    /// train's origin) into the next.
    pub fn on_period_end(&mut self) {
        self.on_carry = self.on_until - self.due(self.train_sent);
    }
    pub fn udp_size(&self) -> u32 {
        match self.spec {
            AppSpec::UdpCbr { packet_size, .. } | AppSpec::OnOff { packet_size, .. } => packet_size,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_core::Rate;

    fn on_off() -> App {
        let spec = AppSpec::OnOff { rate: Rate::mbps(1), packet_size: 1250, mean_on: Dur::from_millis(1), mean_off: Dur::from_millis(1) };
        let rng = RngStream::derive(1, sluice_core::rng::StreamKey::App("f"));
        App { flow: 0, spec, start: Time::ZERO, stop: None, rng, gen: 0, on_until: Time::ZERO, stopped: false, train_start: Time::ZERO, train_sent: 0, on_carry: Dur::ZERO }
    }

    fn ms(x: u64) -> Time {
        Time::ZERO + Dur::from_millis(x)
    }

    // 1250 B at 1 Mbit/s is 10 ms of on time per packet. On for [0, 25 ms): packets at 10 and
    // 20 ms, 5 ms carried. On again for [100, 103 ms): no packet, 8 ms carried. On from 200 ms:
    // the next packet after 2 ms more, at 202 ms, then every 10 ms.
    #[test]
    fn on_time_carries_over_off_periods() {
        let mut a = on_off();
        a.on_period(ms(0), ms(25));
        let mut sent = vec![];
        let mut t = a.on_next();
        while a.on_packet_due(t) {
            a.on_sent();
            sent.push(t);
            t = a.on_next();
        }
        assert_eq!((sent, t), (vec![ms(10), ms(20)], ms(25)));
        a.on_period_end();
        assert_eq!(a.on_carry, Dur::from_millis(5));
        a.on_period(ms(100), ms(103));
        assert_eq!(a.on_next(), ms(103));
        assert!(!a.on_packet_due(ms(103)));
        a.on_period_end();
        assert_eq!(a.on_carry, Dur::from_millis(8));
        a.on_period(ms(200), ms(1000));
        assert_eq!(a.on_next(), ms(202));
        assert!(a.on_packet_due(ms(202)));
        a.on_sent();
        assert_eq!(a.on_next(), ms(212));
    }
}
