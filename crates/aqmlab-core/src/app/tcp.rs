//! `kind = "tcp"`: a TCP bulk transfer, unending or of `bytes`, under a congestion control (`cc`,
//! with its own keys in the same table). The transport itself is [`crate::tcp`].

use serde::Serialize;

use super::{AnyAgent, FlowKind, FlowKindMeta, Transport, Wire};
use crate::agent::{FlowIds, Schedule};
use crate::conf::{Bytes, Fields, Result};
use crate::rng::SimRng;
use crate::tcp::{Common, Defaults, Receiver, Sender};

pub const INFO: FlowKindMeta = FlowKindMeta {
    name: "tcp",
    summary: "A TCP bulk transfer (finite with bytes, else unending) under a congestion control (cc).",
};

/// A bulk transfer (`kind = "tcp"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    #[serde(flatten)]
    pub common: Common,
    /// Data bytes to transfer; `None` for an unending transfer.
    pub bytes: Option<u64>,
}

impl Params {
    pub fn read(f: &mut Fields) -> Result<Self> {
        let common = Common::read(f, &Defaults { cc: "reno", packet_size: 1000, header: 0, max_window: 10_000 })?;
        let bytes: Option<Bytes> =
            f.opt("bytes", "data to transfer, then stop and record the completion time (default: unending)")?;
        if let Some(b) = bytes {
            f.ensure(b.0 > 0, "bytes", "must be above 0")?;
        }
        Ok(Params { common, bytes: bytes.map(|b| b.0) })
    }
}

impl FlowKind for Params {
    fn build(&self, ids: FlowIds, when: Schedule, rng: SimRng, _pairs: &[f64]) -> (AnyAgent, AnyAgent) {
        (
            AnyAgent::TcpSender(Sender::new(&self.common, self.bytes, None, ids, when, Some(&rng))),
            AnyAgent::TcpReceiver(Receiver::new(&self.common, ids, false, Some(&rng))),
        )
    }
    fn mean_packet_size(&self) -> f64 {
        self.common.packet_size as f64
    }
    fn largest_packets(&self) -> (u64, Option<u64>) {
        (self.common.packet_size as u64, Some(self.common.ack_size as u64))
    }
    fn demand_bps(&self) -> f64 {
        f64::INFINITY
    }
    fn max_window(&self) -> Option<u32> {
        Some(self.common.max_window)
    }
    fn transport(&self) -> Transport {
        Transport::Tcp
    }
    fn wire(&self) -> Wire {
        super::tcp_wire(&self.common, self.bytes)
    }
    fn ecn_capable(&self) -> bool {
        self.common.ecn_capable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conf::{parse_toml, Origin, Source};

    fn read(text: &str) -> Result<Params> {
        let src = Source { path: "t.toml".into() };
        let t = parse_toml(text, &src).unwrap();
        let mut f = Fields::new(&src, "flow[x]", &t, Origin::Line(1));
        let p = Params::read(&mut f)?;
        f.finish()?;
        Ok(p)
    }

    #[test]
    fn cc_keys_live_in_the_flow_table_and_unknown_ones_are_refused() {
        let p = read("cc = \"jk\"\nmax_window = 5\ninitial_ssthresh = 5\nmin_rto = \"1s\"\ntick = \"500ms\"").unwrap();
        assert_eq!(p.common.cc.name(), "tahoe");
        assert_eq!(p.common.cc.rto().tick_ns, 500_000_000);
        let e = read("cc = \"reno\"\nalpha = 2").unwrap_err();
        assert!(e.message.starts_with("unknown key"), "{e}");
        let e = read("cc = \"hybla\"").unwrap_err();
        assert!(e.message.contains("unknown congestion control 'hybla'"), "{e}");
        let e = read("cc = \"vegas\"\necn = true").unwrap_err();
        assert!(e.message.contains("ecn = true is allowed with: slowstart, tahoe, reno, newreno, cubic"), "{e}");
        let e = read("cc = \"decbit\"\necn = true").unwrap_err();
        assert!(e.message.contains("always ECN-capable"), "{e}");
        assert!(read("cc = \"vegas\"\nalpha = 2\nbeta = 4").is_ok());
        let e = read("cc = \"tahoe\"\nsack = true").unwrap_err();
        assert!(e.message.contains("sack = true is allowed with: reno, newreno, cubic, dctcp"), "{e}");
        assert!(read("cc = \"cubic\"\nsack = true").unwrap().common.sack);
        assert!(read("packet_size = 40\nheader = 40").is_err());
    }
}
