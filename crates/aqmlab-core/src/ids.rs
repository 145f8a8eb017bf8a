//! Typed identities: a link direction ([`LinkId`]), a packet's flow ([`FlowId`]) and an agent
//! ([`AgentId`]), each a `#[repr(transparent)]` wrapper of the `u32` index it always was, so that
//! one cannot be passed where another (or a time, [`crate::units::SimTime`]) is meant, at no
//! cost: same size, same layout, same code. The event queue, the link model and the event loop
//! speak them; the rest of the core still passes `u32` indices and wraps them where it meets
//! these.

/// A link direction: its index in the scenario's `links` (the two directions of a duplex link
/// are `2k` and `2k + 1`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

impl LinkId {
    /// Its index in the tables of link directions.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The flow a packet belongs to (`Packet::flow`): a scenario flow, `0..n_flows`, or from
/// `n_flows` on a workload's connection, which counts for its workload (see `sim`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// An agent, one end of a flow or of a workload's connection: the sender of flow id `f` is
/// agent `2f`, its receiver `2f + 1`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(pub u32);

impl AgentId {
    /// The sender of flow id `flow`.
    #[inline]
    pub const fn sender(flow: FlowId) -> AgentId {
        AgentId(2 * flow.0)
    }

    /// The receiver of flow id `flow`.
    #[inline]
    pub const fn receiver(flow: FlowId) -> AgentId {
        AgentId(2 * flow.0 + 1)
    }

    /// The flow id whose end it is.
    #[inline]
    pub const fn flow(self) -> FlowId {
        FlowId(self.0 / 2)
    }

    /// Whether it sends the flow's data (else it receives it and sends the ACKs).
    #[inline]
    pub fn is_sender(self) -> bool {
        self.0.is_multiple_of(2)
    }

    /// Its index in the table of agents.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::Event;
    use crate::units::{SimDuration, SimTime};

    /// The size of an event before the ids were typed.
    const EVENT_SIZE: usize = 16;

    #[test]
    fn typed_ids_and_times_cost_nothing() {
        assert_eq!(std::mem::size_of::<SimTime>(), 8);
        assert_eq!(std::mem::size_of::<SimDuration>(), 8);
        assert_eq!(std::mem::size_of::<LinkId>(), 4);
        assert_eq!(std::mem::size_of::<AgentId>(), 4);
        assert_eq!(std::mem::size_of::<FlowId>(), 4);
        // The record the event queue moves did not grow.
        assert_eq!(std::mem::size_of::<Event>(), EVENT_SIZE);
    }

    #[test]
    fn agents_pair_up_by_flow() {
        assert_eq!(AgentId::sender(FlowId(7)), AgentId(14));
        assert_eq!(AgentId::receiver(FlowId(7)).flow(), FlowId(7));
        assert!(AgentId::sender(FlowId(3)).is_sender() && !AgentId::receiver(FlowId(3)).is_sender());
        assert_eq!(SimTime(5) + SimDuration(3), SimTime(8));
        assert_eq!(SimTime(8) - SimTime(5), SimDuration(3));
    }
}
