// A flow-completion-time workload in ns-3, for the side by side with aqmlab's `kind = "workload"`
// (benches/peers/workload_compare.py):
//
//   h --access--> r1 --bottleneck--> r2 --access--> d
//
// Connections arrive at h as a Poisson process of --rate per second between --start and --stop;
// each is a BulkSendApplication (a new TCP connection, three-way handshake included) sending a
// size drawn from --cdf (lines "bytes cumulative-probability", linear between points, '#'
// comments: aqmlab's built-in files) to one PacketSink on d; or, with --flows=FILE, the
// connections listed there ("start-seconds bytes" a line: aqmlab's, for a paired comparison). A
// connection's completion time runs from its start (the SYN) to the sender's receipt of the ACK
// of its last byte, as aqmlab counts it. Every device has a FIFO queue disc (the bottleneck's of --limit packets) and a device queue
// of one packet. TCP: --tcpType (newreno or cubic, HyStart off), --sack (recovery by PRR with it,
// ns-3's own or, with --prr=rfc6937, the one below; NewReno's without; with --pipe=rfc6675 a
// retransmission leaves the pipe once SACKed, below), timestamps off, limited transmit on, segment 1460 bytes (1500 on the wire with TCP/IPv4 headers, +2 PPP),
// initial window --initialCwnd, RTO at least --minRto and 1 s before the first sample (the SYN's
// too), an ACK per segment, a send buffer of --sndBuf bytes (workload_compare.py gives the largest
// window, aqmlab's max_window, or as configured twice the largest window the path holds, which
// the flight of a recovery after a slow-start overshoot can fill, stopping new data:
// benches/peers/README.md, S5).
//
// Prints one JSON line: for every connection, its size, start and completion time (-1 when it
// did not finish by --duration), the SYNs it sent, its retransmission timeouts on data and its
// data segments sent again and its packets dropped at the bottleneck (-1 the SYN, else the
// segment's index from 0); and the
// bottleneck queue's arrivals and drops (r1 -> r2). To trace connections packet by packet:
// --txLog (every segment sent), --eventLog (each drop at the bottleneck with its time, each
// congestion state entered, the retransmission timeout in force), --windowLog (cwnd, ssthresh and
// bytes in flight as they change), --queueLog.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <unordered_map>
#include <vector>

using namespace ns3;

// --prr=rfc6937: Proportional Rate Reduction written here from RFC 6937 (section 3, with its
// slow-start reduction bound), installed as the sockets' recovery instead of ns-3's own
// TcpPrrRecovery. ns-3 3.44's adds a segment to DeliveredData on every duplicate ACK even with
// SACK, where DeliveredData already counts the newly SACKed bytes, and bounds below ssthresh by
// PRR-CRB unless a retransmission was cumulatively ACKed; this one counts DeliveredData once and
// always uses PRR-SSRB, as aqmlab's `prr = true` does. Bytes throughout, as ns-3 counts.
class Rfc6937Prr : public TcpClassicRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::PeerRfc6937Prr")
                                .SetParent<TcpClassicRecovery>()
                                .AddConstructor<Rfc6937Prr>()
                                .SetGroupName("Internet");
        return tid;
    }

    std::string GetName() const override
    {
        return "PeerRfc6937Prr";
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t /* dupAckCount */,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        m_delivered = 0;
        m_out = 0;
        // RecoverFS = snd.nxt - snd.una as recovery begins.
        m_recoverFs = std::max<uint32_t>(unAckDataCount, 1);
        DoRecovery(tcb, deliveredBytes, true);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool /* isDupAck */) override
    {
        m_delivered += deliveredBytes;
        const int64_t pipe = tcb->m_bytesInFlight.Get();
        const int64_t ssthresh = tcb->m_ssThresh.Get();
        const int64_t mss = tcb->m_segmentSize;
        int64_t sndcnt;
        if (pipe > ssthresh)
        {
            // Proportional: prr_out tracks prr_delivered x ssthresh / RecoverFS, rounded up.
            const uint64_t scaled = m_delivered * static_cast<uint64_t>(ssthresh);
            sndcnt = static_cast<int64_t>((scaled + m_recoverFs - 1) / m_recoverFs) - static_cast<int64_t>(m_out);
        }
        else
        {
            // PRR-SSRB: back up to ssthresh, at most one segment beyond what is delivered.
            const int64_t limit =
                std::max<int64_t>(static_cast<int64_t>(m_delivered) - static_cast<int64_t>(m_out),
                                  static_cast<int64_t>(deliveredBytes)) +
                mss;
            sndcnt = std::min<int64_t>(ssthresh - pipe, limit);
        }
        // The fast retransmit always goes.
        sndcnt = std::max<int64_t>(sndcnt, m_out > 0 ? 0 : mss);
        sndcnt = std::max<int64_t>(sndcnt, 0);
        tcb->m_cWnd = static_cast<uint32_t>(pipe + sndcnt);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_out += bytesSent;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<Rfc6937Prr>(this);
    }

  private:
    uint64_t m_delivered{0};
    uint64_t m_out{0};
    uint64_t m_recoverFs{1};
};

NS_OBJECT_ENSURE_REGISTERED(Rfc6937Prr);

// --pipe=rfc6675: a retransmitted segment leaves the pipe once it is SACKed, as RFC 6675's
// SetPipe counts (a SACKed octet is skipped). ns-3 3.44's TcpTxBuffer::BytesInFlight() computes
// sent - (SACKed + lost) + retransmitted, and its scoreboard (TcpTxBuffer::Update) does not clear
// a segment's retransmitted mark when the segment is SACKed, so every retransmission that arrives
// above a hole still counts in the pipe until the cumulative ACK passes it: after a recovery whose
// retransmissions were partly lost again, the sender sees a pipe larger than what is in the
// network and sends less (ns-3's development tree clears the mark there since, its issue 1190).
// The program applies that fix from outside: on each ACK the sender receives (the socket's Rx
// trace, which fires before the ACK is processed), it clears the retransmitted mark, and the
// buffer's count of retransmitted bytes, of every retransmitted segment the ACK's SACK blocks
// cover, so the scoreboard update that follows leaves exactly what the fix leaves. The two
// members are private; an explicit template instantiation may name them.
template <typename Tag, typename Tag::type Member>
struct PrivateMember
{
    friend typename Tag::type Get(Tag)
    {
        return Member;
    }
};

struct SentListTag
{
    using type = std::list<TcpTxItem*> TcpTxBuffer::*;
    friend type Get(SentListTag);
};

struct RetransmittedBytesTag
{
    using type = uint32_t TcpTxBuffer::*;
    friend type Get(RetransmittedBytesTag);
};

template struct PrivateMember<SentListTag, &TcpTxBuffer::m_sentList>;
template struct PrivateMember<RetransmittedBytesTag, &TcpTxBuffer::m_retrans>;

static void
ForgetSackedRetransmissions(Ptr<TcpTxBuffer> buffer, const TcpHeader& header)
{
    if (buffer->GetRetransmitsCount() == 0 || !header.HasOption(TcpOption::SACK))
    {
        return;
    }
    const auto sack = DynamicCast<const TcpOptionSack>(header.GetOption(TcpOption::SACK));
    const TcpOptionSack::SackList blocks = sack->GetSackList();
    uint32_t& retransmitted = (*buffer).*Get(RetransmittedBytesTag());
    SequenceNumber32 begin = buffer->HeadSequence();
    for (TcpTxItem* item : (*buffer).*Get(SentListTag()))
    {
        const uint32_t size = item->GetSeqSize();
        if (item->m_retrans)
        {
            for (const auto& [first, last] : blocks)
            {
                // As TcpTxBuffer::Update marks a segment SACKed: wholly inside the block.
                if (begin >= first && begin + size <= last)
                {
                    item->m_retrans = false;
                    retransmitted -= size;
                    break;
                }
            }
        }
        begin += size;
    }
}

struct Connection
{
    uint64_t bytes;
    double start;
    double fct = -1;
    uint32_t syns = 1;     // SYNs sent: the first leaves before Watch connects, its resends are seen
    uint32_t timeouts = 0; // entries into CA_LOSS (retransmission timer expiries on data)
    uint32_t retransmits = 0; // data segments sent again (below the highest sequence sent)
    uint32_t highest = 0;     // end of the highest data sent so far
    std::vector<int64_t> drops; // at the bottleneck: -1 for the SYN, else the segment's index
};

static std::vector<Connection> g_connections;

// --txLog=FILE: every segment a connection sends (time s, connection, sequence number, payload
// bytes), to compare the two simulators' sending patterns packet by packet.
static std::ofstream g_txLog;

// --queueLog=FILE: the bottleneck queue disc's length (packets) every millisecond.
static std::ofstream g_queueLog;

// --eventLog=FILE: each connection's losses and state changes, one a line "ns connection what
// value": "drop SEQ" a packet dropped at the bottleneck (SEQ its sequence number, 0 the SYN),
// "state NAME" an entry into a congestion state (CA_RECOVERY a fast retransmit, CA_LOSS a
// retransmission timeout), "rto NS" the retransmission timeout each time it changes.
static std::ofstream g_eventLog;

// --windowLog=FILE: each connection's window, one line "ns connection what bytes" each time one
// changes: "cwnd", "ssthresh", "inflight" (ns-3's bytes in flight: its pipe, with SACK).
static std::ofstream g_windowLog;

static void
SampleQueue(Ptr<QueueDisc> queue, Time every)
{
    g_queueLog << queue->GetNPackets() << '\n';
    Simulator::Schedule(every, &SampleQueue, queue, every);
}

static void
OnAck(size_t index, SequenceNumber32 /* old */, SequenceNumber32 acked)
{
    Connection& c = g_connections[index];
    // The SYN takes sequence number 0: the last data byte is `bytes`, its ACK bytes + 1.
    if (c.fct < 0 && acked.GetValue() >= c.bytes + 1)
    {
        c.fct = Simulator::Now().GetSeconds() - c.start;
    }
}

static void
OnTx(size_t index, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    Connection& c = g_connections[index];
    if (g_txLog.is_open())
    {
        g_txLog << Simulator::Now().GetNanoSeconds() << ' ' << index << ' ' << header.GetSequenceNumber().GetValue()
                << ' ' << packet->GetSize() << '\n';
    }
    if (header.GetFlags() & TcpHeader::SYN)
    {
        ++c.syns;
    }
    else if (packet->GetSize() > 0)
    {
        const uint32_t end = header.GetSequenceNumber().GetValue() + packet->GetSize();
        if (end <= c.highest)
        {
            ++c.retransmits;
        }
        c.highest = std::max(c.highest, end);
    }
}

static void
OnCongState(size_t index, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        ++g_connections[index].timeouts;
    }
    if (g_eventLog.is_open())
    {
        g_eventLog << Simulator::Now().GetNanoSeconds() << ' ' << index << " state "
                   << TcpSocketState::TcpCongStateName[now] << '\n';
    }
}

static void
OnRto(size_t index, Time, Time now)
{
    if (g_eventLog.is_open())
    {
        g_eventLog << Simulator::Now().GetNanoSeconds() << ' ' << index << " rto " << now.GetNanoSeconds() << '\n';
    }
}

static void
OnWindow(const char* what, size_t index, uint32_t, uint32_t now)
{
    g_windowLog << Simulator::Now().GetNanoSeconds() << ' ' << index << ' ' << what << ' ' << now << '\n';
}

static void
OnCwnd(size_t index, uint32_t old, uint32_t now)
{
    OnWindow("cwnd", index, old, now);
}

static void
OnSsthresh(size_t index, uint32_t old, uint32_t now)
{
    OnWindow("ssthresh", index, old, now);
}

static void
OnInflight(size_t index, uint32_t old, uint32_t now)
{
    OnWindow("inflight", index, old, now);
}

static void
OnRx(Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase> socket)
{
    ForgetSackedRetransmissions(socket->GetTxBuffer(), header);
}

// A connection by its source port (ns-3 hands ephemeral ports out in turn, none reused here).
static std::unordered_map<uint16_t, size_t> g_byPort;

// --pipe=rfc6675 (ForgetSackedRetransmissions).
static bool g_rfcPipe = false;

static void
OnBottleneckDrop(Ptr<const QueueDiscItem> item)
{
    TcpHeader header;
    if (item->GetPacket()->PeekHeader(header) == 0)
    {
        return;
    }
    const auto found = g_byPort.find(header.GetSourcePort());
    if (found == g_byPort.end())
    {
        return; // an ACK from the sink: not a connection's data
    }
    // The sender's ACK that ends the handshake carries no data: not a segment of the connection
    // (aqmlab sends data straight after the SYN-ACK, without it).
    const bool syn = header.GetFlags() & TcpHeader::SYN;
    if (!syn && item->GetPacket()->GetSize() == header.GetSerializedSize())
    {
        return;
    }
    Connection& c = g_connections[found->second];
    if (g_eventLog.is_open())
    {
        g_eventLog << Simulator::Now().GetNanoSeconds() << ' ' << found->second << " drop "
                   << header.GetSequenceNumber().GetValue() << '\n';
    }
    // The SYN takes sequence number 0: data byte k (from 0) has sequence number k + 1.
    c.drops.push_back(syn ? int64_t{-1} : int64_t{(header.GetSequenceNumber().GetValue() - 1) / 1460});
}

// Called 1 ns after the application starts (its socket exists from then on).
static void
Watch(Ptr<BulkSendApplication> app, size_t index)
{
    Ptr<Socket> socket = app->GetSocket();
    Address local;
    socket->GetSockName(local);
    g_byPort[InetSocketAddress::ConvertFrom(local).GetPort()] = index;
    socket->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnAck, index));
    socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, index));
    socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, index));
    if (g_eventLog.is_open())
    {
        socket->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, index));
    }
    if (g_rfcPipe)
    {
        socket->TraceConnectWithoutContext("Rx", MakeCallback(&OnRx));
    }
    if (g_windowLog.is_open())
    {
        socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, index));
        socket->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, index));
        socket->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnInflight, index));
    }
}

int
main(int argc, char* argv[])
{
    std::string cdfPath;
    std::string flowsPath;
    std::string txLog;
    std::string queueLog;
    std::string eventLog;
    std::string windowLog;
    double rate = 10;
    double start = 0;
    double stop = 30;
    double duration = 30;
    std::string accessRate = "10Gbps";
    std::string accessDelay = "0.5ms";
    std::string bottleneckRate = "1Gbps";
    std::string bottleneckDelay = "4ms";
    uint32_t limit = 1000;
    std::string tcpType = "cubic";
    uint32_t initialCwnd = 10;
    double minRto = 0.2;
    uint32_t seed = 1;
    uint32_t sndBuf = 1 << 20;
    bool sack = false;
    std::string prr = "ns3";
    std::string pipe = "ns3";

    CommandLine cmd(__FILE__);
    cmd.AddValue("cdf", "flow-size CDF file", cdfPath);
    cmd.AddValue("flows",
                 "connections given instead of drawn: a line 'start-seconds bytes' each (then --cdf, --rate, --start "
                 "and --stop are not read)",
                 flowsPath);
    cmd.AddValue("rate", "connections per second", rate);
    cmd.AddValue("start", "first arrival no earlier than this, seconds", start);
    cmd.AddValue("stop", "no arrival after this, seconds", stop);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("accessRate", "access links' rate", accessRate);
    cmd.AddValue("accessDelay", "access links' delay", accessDelay);
    cmd.AddValue("bottleneckRate", "r1-r2 rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "r1-r2 delay", bottleneckDelay);
    cmd.AddValue("limit", "bottleneck FIFO limit, packets", limit);
    cmd.AddValue("tcpType", "newreno or cubic", tcpType);
    cmd.AddValue("initialCwnd", "TCP initial window, segments", initialCwnd);
    cmd.AddValue("minRto", "TCP minimum retransmission timeout, seconds", minRto);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("sndBuf", "TCP send buffer, bytes", sndBuf);
    cmd.AddValue("queueLog", "write the bottleneck queue's length every millisecond to this file", queueLog);
    cmd.AddValue("eventLog", "write each connection's bottleneck drops and congestion states to this file", eventLog);
    cmd.AddValue("windowLog", "write each connection's cwnd, ssthresh and bytes in flight, as they change, to this file", windowLog);
    cmd.AddValue("txLog", "write every segment sent (ns, connection, seq, bytes) to this file", txLog);
    cmd.AddValue("sack", "selective acknowledgements (recovery by PRR; without, NewReno's)", sack);
    cmd.AddValue("prr", "with --sack, ns3 (ns-3's TcpPrrRecovery) or rfc6937 (written here from the RFC)", prr);
    cmd.AddValue("pipe",
                 "ns3 (ns-3 3.44's bytes in flight) or rfc6675 (a retransmitted segment leaves the pipe once SACKed)",
                 pipe);
    cmd.Parse(argc, argv);
    if (pipe != "ns3" && pipe != "rfc6675")
    {
        std::cerr << "workload: --pipe must be ns3 or rfc6675, not '" << pipe << "'" << std::endl;
        return 2;
    }
    g_rfcPipe = pipe == "rfc6675";
    if (!txLog.empty())
    {
        g_txLog.open(txLog);
    }
    if (!eventLog.empty())
    {
        g_eventLog.open(eventLog);
    }
    if (!windowLog.empty())
    {
        g_windowLog.open(windowLog);
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(tcpType == "cubic" ? TcpCubic::GetTypeId() : TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    // ns-3's send buffer is a list that each transmission scans from its head, so its size costs
    // run time; smaller than the largest flight, it also stops new data when the flight fills it.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    // The receive buffer bounds the advertised window: aqmlab's default max_window of 10000
    // segments.
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(10000 * 1460));
    // Without SACK, NewReno's fast recovery as aqmlab's (ns-3's default is PRR); with SACK, PRR
    // (RFC 6937), which like aqmlab's RFC 6675 recovery brings the window in flight down to
    // ssthresh (ns-3's classic recovery would inflate it by a segment per duplicate ACK on top of
    // the scoreboard's pipe). The SYN is resent after RFC 6298's initial 1 s timeout (ns-3's
    // ConnTimeout default is 3 s). Limited transmit (RFC 3042) stays on, unlike aqmlab: with it
    // off and SACK off, ns-3 3.44 aborts on an assertion in SendPendingData (a segment sent in
    // CA_DISORDER) within 30 s of this workload.
    if (!sack)
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    else if (prr == "rfc6937")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(Rfc6937Prr::GetTypeId()));
    }
    else if (prr != "ns3")
    {
        std::cerr << "workload: --prr must be ns3 or rfc6937, not '" << prr << "'" << std::endl;
        return 2;
    }
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));

    // The sizes' CDF.
    std::vector<std::pair<double, double>> cdf;
    {
        std::ifstream in(cdfPath);
        std::string line;
        while (std::getline(in, line))
        {
            if (line.empty() || line[0] == '#')
            {
                continue;
            }
            std::istringstream fields(line);
            double bytes, p;
            if (fields >> bytes >> p)
            {
                cdf.emplace_back(bytes, p);
            }
        }
    }
    NS_ABORT_MSG_IF(flowsPath.empty() && cdf.size() < 2, "--cdf: no points read from " << cdfPath);

    NodeContainer nodes;
    nodes.Create(4);
    Ptr<Node> h = nodes.Get(0), r1 = nodes.Get(1), r2 = nodes.Get(2), d = nodes.Get(3);
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer hr1 = access.Install(h, r1);
    NetDeviceContainer r1r2 = bottleneck.Install(r1, r2);
    NetDeviceContainer r2d = access.Install(r2, d);

    InternetStackHelper stack;
    stack.Install(nodes);
    TrafficControlHelper deep;
    deep.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));
    deep.Install(hr1);
    deep.Install(r2d);
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
    Ptr<QueueDisc> bottleneckQueue = fifo.Install(r1r2).Get(0);
    bottleneckQueue->TraceConnectWithoutContext("Drop", MakeCallback(&OnBottleneckDrop));
    if (!queueLog.empty())
    {
        g_queueLog.open(queueLog);
        Simulator::Schedule(MilliSeconds(1), &SampleQueue, bottleneckQueue, MilliSeconds(1));
    }

    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    addr.Assign(hr1);
    addr.NewNetwork();
    addr.Assign(r1r2);
    addr.NewNetwork();
    Ipv4InterfaceContainer sinkIf = addr.Assign(r2d);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5001;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(d).Start(Seconds(0));

    // The connections: (start, bytes), drawn (Poisson arrivals, sizes from the CDF) or given.
    std::vector<std::pair<double, uint64_t>> arrivals;
    if (!flowsPath.empty())
    {
        std::ifstream in(flowsPath);
        NS_ABORT_MSG_IF(!in, "--flows: cannot read " << flowsPath);
        double at;
        uint64_t bytes;
        while (in >> at >> bytes)
        {
            arrivals.emplace_back(at, bytes);
        }
    }
    else
    {
        auto gap = CreateObject<ExponentialRandomVariable>();
        gap->SetAttribute("Mean", DoubleValue(1.0 / rate));
        auto u = CreateObject<UniformRandomVariable>();
        for (double t = start + gap->GetValue(); t < stop; t += gap->GetValue())
        {
            const double p = u->GetValue();
            double size = cdf.back().first;
            for (size_t k = 1; k < cdf.size(); ++k)
            {
                if (p <= cdf[k].second)
                {
                    const auto [x0, p0] = cdf[k - 1];
                    const auto [x1, p1] = cdf[k];
                    size = p1 > p0 ? x0 + (x1 - x0) * (p - p0) / (p1 - p0) : x1;
                    break;
                }
            }
            arrivals.emplace_back(t, std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size))));
        }
    }
    for (const auto& [t, bytes] : arrivals)
    {
        BulkSendHelper sender("ns3::TcpSocketFactory", InetSocketAddress(sinkIf.GetAddress(1), port));
        sender.SetAttribute("MaxBytes", UintegerValue(bytes));
        sender.SetAttribute("SendSize", UintegerValue(1460));
        ApplicationContainer app = sender.Install(h);
        app.Start(Seconds(t));
        g_connections.push_back({bytes, t});
        Simulator::Schedule(Seconds(t) + NanoSeconds(1),
                            &Watch,
                            DynamicCast<BulkSendApplication>(app.Get(0)),
                            g_connections.size() - 1);
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    std::ostringstream out;
    out.precision(9);
    out << "{\"simulator\": \"ns-3\", \"connections\": [";
    for (size_t k = 0; k < g_connections.size(); ++k)
    {
        const Connection& c = g_connections[k];
        out << (k ? ", " : "") << "[" << c.bytes << ", " << c.start << ", " << c.fct << ", " << c.syns << ", "
            << c.timeouts << ", " << c.retransmits << ", [";
        for (size_t d = 0; d < c.drops.size(); ++d)
        {
            out << (d ? ", " : "") << c.drops[d];
        }
        out << "]]";
    }
    const QueueDisc::Stats& stats = bottleneckQueue->GetStats();
    out << "], \"bottleneck\": {\"arrivals\": " << stats.nTotalReceivedPackets
        << ", \"drops\": " << stats.nTotalDroppedPackets << "}}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
