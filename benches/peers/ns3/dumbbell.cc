// The aqmlab benchmark scenarios (benches/scenarios/*.toml) written for ns-3, so the two
// simulators can be timed on the same work. One program, every scenario, by arguments:
//
//   s{1..N} --access--> r1 --bottleneck--> r2 --sink link--> sink
//
// The first --tcp sources run one bulk TCP flow each (BulkSend -> PacketSink), the next
// --cbr sources one constant-rate UDP flow each (UdpClient -> PacketSink). Flows start at a
// uniform random time in [0, --jitter]. All links are point-to-point and duplex; every
// device gets a FifoQueueDisc of --accessLimit packets (ns-3's default FqCoDel is never
// installed), except the two bottleneck devices, which get --queue (fifo, red, codel,
// fq_codel, pie, fq_pie, cobalt or fq_cobalt) with --limit packets. Device queues hold one packet, so
// the queue disc is where packets wait. A queue disc's other attributes come from the command
// line as ns-3 attribute defaults (--ns3::CoDelQueueDisc::Target=5ms), set by compare.py.
//
// --tcpType picks the congestion control (newreno, cubic, dctcp, bbr); --ecn makes the TCP
// sockets ECN-capable (DCTCP needs it); BBR paces (TcpSocketState::EnablePacing).
//
// Packet sizes are sizes on the wire, as in aqmlab: a CBR datagram of --pktSize bytes is
// pktSize - 30 bytes of UDP payload (UDP 8, IPv4 20, PPP 2), a TCP data segment
// pktSize - 42 bytes of payload (TCP 20 without options, IPv4 20, PPP 2), an ACK 42 bytes.
//
// Prints one JSON line: bottleneck (r1->r2) arrivals, drops by reason, marks and departures,
// the mean sojourn time in its queue disc, the sinks' received bytes (per flow with
// --perFlow), the number of events, and wall times of the set-up and of Simulator::Run alone.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#ifndef NS3_PEER_VERSION
#define NS3_PEER_VERSION "unknown" // build.sh passes the installed wheel's version
#endif

using namespace ns3;

namespace
{

uint64_t g_txPackets = 0; // bottleneck r1->r2 transmissions started
uint64_t g_txBytes = 0;
uint64_t g_devDrops = 0; // drops in any device queue (should stay 0: the queue disc holds back)
double g_sojournSumS = 0; // sojourn times of the packets the bottleneck queue disc dequeued
uint64_t g_sojournN = 0;
// The same split by IP protocol (6 TCP, 17 UDP), from the queue disc's Dequeue trace.
std::map<uint8_t, std::pair<double, uint64_t>> g_sojournByProtocol;

void
OnBottleneckTx(Ptr<const Packet> p)
{
    ++g_txPackets;
    g_txBytes += p->GetSize();
}

void
OnDeviceDrop(Ptr<const Packet>)
{
    ++g_devDrops;
}

void
OnSojourn(Time t)
{
    g_sojournSumS += t.GetSeconds();
    ++g_sojournN;
}

// A packet dropped at dequeue (CoDel, PIE in dequeue mode) has fired SojournTime and Dequeue as
// it left its queue; it is taken back out, so that the means are over transmitted packets, as
// aqmlab's are.
void
OnBottleneckDropAfterDequeue(Ptr<const QueueDiscItem> item, const char* /* reason */)
{
    double sojourn = (Simulator::Now() - item->GetTimeStamp()).GetSeconds();
    g_sojournSumS -= sojourn;
    --g_sojournN;
    if (auto ip = DynamicCast<const Ipv4QueueDiscItem>(item))
    {
        auto& [sum, n] = g_sojournByProtocol[ip->GetHeader().GetProtocol()];
        sum -= sojourn;
        --n;
    }
}

double
MeanSojourn(uint8_t protocol)
{
    auto it = g_sojournByProtocol.find(protocol);
    return it == g_sojournByProtocol.end() || it->second.second == 0 ? 0.0 : it->second.first / it->second.second;
}

void
OnBottleneckDequeue(Ptr<const QueueDiscItem> item)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return;
    }
    auto& [sum, n] = g_sojournByProtocol[ip->GetHeader().GetProtocol()];
    sum += (Simulator::Now() - item->GetTimeStamp()).GetSeconds();
    ++n;
}

double
Since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string
JsonEscape(const std::string& s)
{
    std::string out;
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto t0 = std::chrono::steady_clock::now();

    uint32_t nTcp = 0;
    uint32_t nCbr = 32;
    std::string cbrRate = "62.5kbps";
    uint32_t pktSize = 1000;
    std::string accessRate = "10Mbps";
    std::string accessDelay = "1ms";
    std::string bottleneckRate = "1Mbps";
    std::string bottleneckDelay = "1ms";
    std::string sinkRate = "10Mbps";
    std::string sinkDelay = "1ms";
    std::string queue = "fifo";
    uint32_t limit = 300;
    uint32_t accessLimit = 300;
    double minTh = 30;
    double maxTh = 60;
    double maxP = 0.1;
    double qW = 0.002;
    bool gentle = false;
    bool wait = true;
    double duration = 100;
    double jitter = 1;
    uint32_t maxWindow = 0; // packets; 0: ns-3's default buffers (128 KiB)
    uint32_t initialCwnd = 1;
    uint32_t delAckCount = 1;
    double minRto = 0.2;
    uint32_t seed = 1;
    std::string routing = "static";
    double rateChangeAt = -1; // seconds; below 0: the bottleneck's rate never changes
    std::string rateChangeTo;
    std::string tbfRate;   // empty: no shaper
    uint32_t tbfBurst = 0; // bytes
    std::string tcpType = "newreno";
    bool ecn = false;
    bool perFlow = false;
    uint32_t quantum = 0; // fq_codel / fq_pie quantum, bytes; 0: ns-3's default (the device MTU)

    // TCP: NewReno with classic (RFC 6582) recovery rather than ns-3's default Cubic with PRR;
    // no SACK, no timestamps, no limited transmit, as aqmlab's. Window scaling stays on (the
    // receive buffer can exceed 64 KiB). Set before parsing, so that any attribute default can
    // still be changed from the command line, as in --ns3::TcpSocketBase::Sack=true.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));

    CommandLine cmd(__FILE__);
    cmd.AddValue("tcp", "bulk TCP NewReno flows (one per source)", nTcp);
    cmd.AddValue("cbr", "CBR UDP flows (one per source, after the TCP ones)", nCbr);
    cmd.AddValue("cbrRate", "rate of each CBR flow, on the wire", cbrRate);
    cmd.AddValue("pktSize", "data packet size on the wire, bytes", pktSize);
    cmd.AddValue("accessRate", "source access links' rate", accessRate);
    cmd.AddValue("accessDelay", "source access links' delay", accessDelay);
    cmd.AddValue("bottleneckRate", "r1-r2 rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "r1-r2 delay", bottleneckDelay);
    cmd.AddValue("sinkRate", "r2-sink rate", sinkRate);
    cmd.AddValue("sinkDelay", "r2-sink delay", sinkDelay);
    cmd.AddValue("queue", "bottleneck queue disc: fifo, red, codel, fq_codel, pie, fq_pie, cobalt, fq_cobalt", queue);
    cmd.AddValue("limit", "bottleneck queue disc limit, packets", limit);
    cmd.AddValue("accessLimit", "every other device's FIFO limit, packets", accessLimit);
    cmd.AddValue("minTh", "RED min_th, packets", minTh);
    cmd.AddValue("maxTh", "RED max_th, packets", maxTh);
    cmd.AddValue("maxP", "RED max_p (LInterm = 1 / max_p)", maxP);
    cmd.AddValue("qW", "RED w_q", qW);
    cmd.AddValue("gentle", "RED gentle", gentle);
    cmd.AddValue("wait", "RED wait", wait);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("jitter", "flows start uniformly in [0, jitter] seconds", jitter);
    cmd.AddValue("maxWindow", "TCP window limit, packets (sets the receive buffer)", maxWindow);
    cmd.AddValue("initialCwnd", "TCP initial window, segments", initialCwnd);
    cmd.AddValue("delAckCount", "TCP segments per ACK (1: no delayed ACKs)", delAckCount);
    cmd.AddValue("minRto", "TCP minimum retransmission timeout, seconds", minRto);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("routing", "static (default routes) or global (Ipv4GlobalRoutingHelper)", routing);
    cmd.AddValue("tcpType", "TCP congestion control: newreno, cubic, dctcp, bbr", tcpType);
    cmd.AddValue("ecn", "ECN-capable TCP sockets (RFC 3168; DCTCP's own feedback for dctcp)", ecn);
    cmd.AddValue("rateChangeAt", "the bottleneck's r1->r2 rate changes at this time, seconds", rateChangeAt);
    cmd.AddValue("rateChangeTo", "... to this rate", rateChangeTo);
    cmd.AddValue("tbfRate", "shape the bottleneck with a TbfQueueDisc at this rate, --queue inside it", tbfRate);
    cmd.AddValue("tbfBurst", "the shaper's bucket, bytes", tbfBurst);
    cmd.AddValue("quantum", "fq_codel / fq_pie quantum, bytes (0: the device MTU)", quantum);
    cmd.AddValue("perFlow", "a sink per flow (received bytes per flow in the output)", perFlow);
    cmd.Parse(argc, argv);

    const std::map<std::string, std::string> queueTypes = {
        {"fifo", "ns3::FifoQueueDisc"},
        {"red", "ns3::RedQueueDisc"},
        {"codel", "ns3::CoDelQueueDisc"},
        {"fq_codel", "ns3::FqCoDelQueueDisc"},
        {"pie", "ns3::PieQueueDisc"},
        {"fq_pie", "ns3::FqPieQueueDisc"},
        {"cobalt", "ns3::CobaltQueueDisc"},
        {"fq_cobalt", "ns3::FqCobaltQueueDisc"},
    };
    const std::map<std::string, TypeId> tcpTypes = {
        {"newreno", TcpNewReno::GetTypeId()},
        {"cubic", TcpCubic::GetTypeId()},
        {"dctcp", TcpDctcp::GetTypeId()},
        {"bbr", TcpBbr::GetTypeId()},
    };
    NS_ABORT_MSG_UNLESS(queueTypes.count(queue), "--queue must be fifo, red, codel, fq_codel, pie, fq_pie, cobalt or fq_cobalt");
    NS_ABORT_MSG_UNLESS(tcpTypes.count(tcpType), "--tcpType must be newreno, cubic, dctcp or bbr");
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tcpTypes.at(tcpType)));
    if (ecn || tcpType == "dctcp")
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }
    if (tcpType == "bbr")
    {
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }
    NS_ABORT_MSG_UNLESS(routing == "static" || routing == "global", "--routing must be static or global");
    NS_ABORT_MSG_UNLESS(pktSize > 42, "--pktSize must exceed the 42 bytes of TCP/IP/PPP headers");
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    const uint32_t segSize = pktSize - 42; // TCP payload: 20 TCP + 20 IPv4 + 2 PPP
    const uint32_t udpPayload = pktSize - 30; // 8 UDP + 20 IPv4 + 2 PPP

    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    if (maxWindow > 0)
    {
        // The receive buffer bounds the advertised window; the send buffer keeps a full
        // window plus what BulkSend has queued behind it.
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(maxWindow * segSize));
        Config::SetDefault("ns3::TcpSocket::SndBufSize",
                           UintegerValue(std::max<uint32_t>(2 * maxWindow * segSize, 131072)));
    }

    const uint32_t nSrc = nTcp + nCbr;
    NS_ABORT_MSG_UNLESS(nSrc > 0, "no flows");

    NodeContainer sources;
    sources.Create(nSrc);
    NodeContainer routers;
    routers.Create(2);
    NodeContainer sinkNode;
    sinkNode.Create(1);
    Ptr<Node> r1 = routers.Get(0);
    Ptr<Node> r2 = routers.Get(1);
    Ptr<Node> sink = sinkNode.Get(0);

    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    p2p.SetDeviceAttribute("DataRate", StringValue(accessRate));
    p2p.SetChannelAttribute("Delay", StringValue(accessDelay));
    std::vector<NetDeviceContainer> access(nSrc);
    for (uint32_t i = 0; i < nSrc; ++i)
    {
        access[i] = p2p.Install(sources.Get(i), r1);
    }
    p2p.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    p2p.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    NetDeviceContainer bottleneck = p2p.Install(r1, r2);
    if (rateChangeAt >= 0)
    {
        // A packet in transmission keeps the rate it started at; the next one takes the new rate.
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0));
        const DataRate to(rateChangeTo);
        Simulator::Schedule(Seconds(rateChangeAt), [dev, to]() { dev->SetDataRate(to); });
    }
    p2p.SetDeviceAttribute("DataRate", StringValue(sinkRate));
    p2p.SetChannelAttribute("Delay", StringValue(sinkDelay));
    NetDeviceContainer sinkLink = p2p.Install(r2, sink);

    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    stack.Install(sources);
    stack.Install(routers);
    stack.Install(sinkNode);

    // Queue discs go on before addresses: Ipv4AddressHelper::Assign installs the default
    // (FqCoDel) only on devices that have none.
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                          "MaxSize",
                          QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, accessLimit)));
    for (auto& d : access)
    {
        fifo.Install(d);
    }
    fifo.Install(sinkLink);

    TrafficControlHelper bq;
    if (queue == "red")
    {
        bq.SetRootQueueDisc("ns3::RedQueueDisc",
                            "MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)),
                            "MinTh",
                            DoubleValue(minTh),
                            "MaxTh",
                            DoubleValue(maxTh),
                            "LInterm",
                            DoubleValue(1.0 / maxP),
                            "QW",
                            DoubleValue(qW),
                            "Gentle",
                            BooleanValue(gentle),
                            "Wait",
                            BooleanValue(wait),
                            "MeanPktSize",
                            UintegerValue(pktSize),
                            "LinkBandwidth",
                            DataRateValue(DataRate(bottleneckRate)),
                            "LinkDelay",
                            TimeValue(Time(bottleneckDelay)));
    }
    else if (!tbfRate.empty())
    {
        // Linux's tbf with a child discipline: the shaper's tokens decide when the child's next
        // packet leaves; the child holds, drops and orders the backlog.
        uint16_t handle = bq.SetRootQueueDisc("ns3::TbfQueueDisc",
                                              "Rate",
                                              DataRateValue(DataRate(tbfRate)),
                                              "Burst",
                                              UintegerValue(tbfBurst),
                                              "Mtu",
                                              UintegerValue(1500));
        auto classes = bq.AddQueueDiscClasses(handle, 1, "ns3::QueueDiscClass");
        bq.AddChildQueueDisc(handle,
                             classes[0],
                             queueTypes.at(queue),
                             "MaxSize",
                             QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
    }
    else
    {
        bq.SetRootQueueDisc(queueTypes.at(queue),
                            "MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
    }
    QueueDiscContainer bqd = bq.Install(bottleneck);
    for (uint32_t k = 0; quantum > 0 && k < bqd.GetN(); ++k)
    {
        // Behind a shaper, the flow-queueing discipline is the shaper's child.
        Ptr<QueueDisc> disc = bqd.Get(k);
        if (auto tbf = DynamicCast<TbfQueueDisc>(disc))
        {
            disc = tbf->GetQueueDiscClass(0)->GetQueueDisc();
        }
        // Not an attribute in ns-3: a setter, read when the queue disc initialises.
        if (auto fq = DynamicCast<FqCoDelQueueDisc>(disc))
        {
            fq->SetQuantum(quantum);
        }
        else if (auto fqp = DynamicCast<FqPieQueueDisc>(disc))
        {
            fqp->SetQuantum(quantum);
        }
        else if (auto fqc = DynamicCast<FqCobaltQueueDisc>(disc))
        {
            fqc->SetQuantum(quantum);
        }
        else
        {
            NS_ABORT_MSG("--quantum applies to fq_codel, fq_pie and fq_cobalt only");
        }
    }

    // Addresses: a /30 per link. 10.0.0.0/8 holds 4 million of them.
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4InterfaceContainer> accessIf(nSrc);
    for (uint32_t i = 0; i < nSrc; ++i)
    {
        accessIf[i] = addr.Assign(access[i]);
        addr.NewNetwork();
    }
    Ipv4InterfaceContainer bottleneckIf = addr.Assign(bottleneck);
    addr.NewNetwork();
    Ipv4InterfaceContainer sinkIf = addr.Assign(sinkLink);

    if (routing == "global")
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }
    else
    {
        // A dumbbell needs no routing protocol: hosts and r2 send everything not local to
        // their one neighbour towards the other side; r1 knows the sink is behind r2 and
        // reaches every source over the connected /30s.
        Ipv4StaticRoutingHelper helper;
        for (uint32_t i = 0; i < nSrc; ++i)
        {
            helper.GetStaticRouting(sources.Get(i)->GetObject<Ipv4>())
                ->SetDefaultRoute(accessIf[i].GetAddress(1), 1);
        }
        helper.GetStaticRouting(r1->GetObject<Ipv4>())
            ->AddNetworkRouteTo(Ipv4Address(sinkIf.GetAddress(1)).CombineMask(Ipv4Mask("/30")),
                                Ipv4Mask("/30"),
                                bottleneckIf.GetAddress(1),
                                r1->GetObject<Ipv4>()->GetInterfaceForDevice(bottleneck.Get(0)));
        helper.GetStaticRouting(r2->GetObject<Ipv4>())
            ->SetDefaultRoute(bottleneckIf.GetAddress(0),
                              r2->GetObject<Ipv4>()->GetInterfaceForDevice(bottleneck.Get(1)));
        helper.GetStaticRouting(sink->GetObject<Ipv4>())->SetDefaultRoute(sinkIf.GetAddress(0), 1);
    }

    // Applications.
    // One sink per protocol, or with --perFlow one per flow (flow i on port base + i).
    const uint16_t tcpPort = 5000;
    const uint16_t udpPort = 4000;
    NS_ABORT_MSG_UNLESS(!perFlow || (nTcp < 1000 && nCbr < 1000), "--perFlow allows fewer than 1000 flows of each kind");
    Ipv4Address sinkAddr = sinkIf.GetAddress(1);
    ApplicationContainer sinks;
    std::vector<Ptr<PacketSink>> tcpSinks;
    std::vector<Ptr<PacketSink>> udpSinks;
    auto addSinks = [&](const char* factory, uint16_t port, uint32_t n, std::vector<Ptr<PacketSink>>& out) {
        for (uint32_t i = 0; i < (perFlow ? n : std::min<uint32_t>(n, 1)); ++i)
        {
            PacketSinkHelper h(factory, InetSocketAddress(Ipv4Address::GetAny(), port + (perFlow ? i : 0)));
            auto a = h.Install(sink);
            out.push_back(DynamicCast<PacketSink>(a.Get(0)));
            sinks.Add(a);
        }
    };
    addSinks("ns3::TcpSocketFactory", tcpPort, nTcp, tcpSinks);
    addSinks("ns3::UdpSocketFactory", udpPort, nCbr, udpSinks);
    sinks.Start(Seconds(0));

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    start->SetAttribute("Min", DoubleValue(0));
    start->SetAttribute("Max", DoubleValue(jitter));
    start->SetStream(1);
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr, tcpPort));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(segSize));
    // The k-th datagram leaves at start + k * (wire bits / rate), as aqmlab's CBR.
    const double interval = pktSize * 8.0 / DataRate(cbrRate).GetBitRate();
    UdpClientHelper cbr(InetSocketAddress(sinkAddr, udpPort));
    cbr.SetAttribute("MaxPackets", UintegerValue(0));
    cbr.SetAttribute("Interval", TimeValue(Seconds(interval)));
    cbr.SetAttribute("PacketSize", UintegerValue(udpPayload));
    for (uint32_t i = 0; i < nSrc; ++i)
    {
        if (perFlow)
        {
            bulk.SetAttribute("Remote", AddressValue(InetSocketAddress(sinkAddr, tcpPort + i)));
            if (i >= nTcp)
            {
                cbr.SetAttribute("Remote", AddressValue(InetSocketAddress(sinkAddr, udpPort + (i - nTcp))));
            }
        }
        ApplicationContainer app = i < nTcp ? bulk.Install(sources.Get(i)) : cbr.Install(sources.Get(i));
        app.Start(Seconds(start->GetValue()));
    }

    bottleneck.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnBottleneckTx));
    bqd.Get(0)->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    bqd.Get(0)->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnBottleneckDequeue));
    bqd.Get(0)->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnBottleneckDropAfterDequeue));
    for (auto* c : {&bottleneck, &sinkLink})
    {
        for (uint32_t k = 0; k < c->GetN(); ++k)
        {
            DynamicCast<PointToPointNetDevice>(c->Get(k))->GetQueue()->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&OnDeviceDrop));
        }
    }
    for (auto& d : access)
    {
        for (uint32_t k = 0; k < d.GetN(); ++k)
        {
            DynamicCast<PointToPointNetDevice>(d.Get(k))->GetQueue()->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&OnDeviceDrop));
        }
    }

    Simulator::Stop(Seconds(duration));
    double setupS = Since(t0);
    auto t1 = std::chrono::steady_clock::now();
    Simulator::Run();
    double runS = Since(t1);
    uint64_t events = Simulator::GetEventCount();

    const QueueDisc::Stats& st = bqd.Get(0)->GetStats();
    std::ostringstream reasons;
    bool first = true;
    for (const auto* m : {&st.nDroppedPacketsBeforeEnqueue, &st.nDroppedPacketsAfterDequeue})
    {
        for (const auto& [why, n] : *m)
        {
            reasons << (first ? "" : ", ") << "\"" << JsonEscape(why) << "\": " << n;
            first = false;
        }
    }
    std::ostringstream marks;
    first = true;
    for (const auto& [why, n] : st.nMarkedPackets)
    {
        marks << (first ? "" : ", ") << "\"" << JsonEscape(why) << "\": " << n;
        first = false;
    }
    auto rxBytes = [](const std::vector<Ptr<PacketSink>>& s) {
        uint64_t total = 0;
        std::ostringstream each;
        for (size_t i = 0; i < s.size(); ++i)
        {
            total += s[i]->GetTotalRx();
            each << (i ? ", " : "") << s[i]->GetTotalRx();
        }
        return std::make_pair(total, each.str());
    };
    const auto [tcpRx, tcpEach] = rxBytes(tcpSinks);
    const auto [udpRx, udpEach] = rxBytes(udpSinks);
    const double rateBps = DataRate(bottleneckRate).GetBitRate();
    // The line's capacity over the run, for utilisation: each rate for as long as it held.
    double capacityBits = rateBps * duration;
    if (rateChangeAt >= 0 && rateChangeAt < duration)
    {
        capacityBits = rateBps * rateChangeAt + DataRate(rateChangeTo).GetBitRate() * (duration - rateChangeAt);
    }
    std::ostringstream out;
    out.precision(9);
    out << "{\"simulator\": \"ns-3\", \"version\": \"" << NS3_PEER_VERSION << "\""
        << ", \"sim_time_s\": " << duration << ", \"events\": " << events
        << ", \"setup_s\": " << setupS << ", \"run_s\": " << runS << ", \"bottleneck\": {"
        << "\"arrivals\": " << st.nTotalReceivedPackets << ", \"dropped_pkts\": " << st.nTotalDroppedPackets
        << ", \"drops_by_reason\": {" << reasons.str() << "}"
        << ", \"departures\": " << g_txPackets << ", \"departed_bytes\": " << g_txBytes
        << ", \"marked_pkts\": " << st.nTotalMarkedPackets << ", \"marks_by_reason\": {" << marks.str() << "}"
        << ", \"mean_sojourn_s\": " << (g_sojournN ? g_sojournSumS / g_sojournN : 0.0)
        << ", \"mean_sojourn_tcp_s\": " << MeanSojourn(6) << ", \"mean_sojourn_udp_s\": " << MeanSojourn(17)
        << ", \"sojourn_samples_tcp\": " << g_sojournByProtocol[6].second
        << ", \"sojourn_samples_udp\": " << g_sojournByProtocol[17].second << ", \"sojourn_samples\": " << g_sojournN
        << ", \"rate_bps\": " << rateBps << ", \"utilization\": " << g_txBytes * 8.0 / capacityBits << "}"
        << ", \"queue\": \"" << queue << "\", \"tcp_type\": \"" << tcpType << "\""
        << ", \"device_queue_drops\": " << g_devDrops
        << ", \"tcp_rx_bytes\": " << tcpRx << ", \"udp_rx_bytes\": " << udpRx;
    if (perFlow)
    {
        out << ", \"tcp_rx_bytes_per_flow\": [" << tcpEach << "], \"udp_rx_bytes_per_flow\": [" << udpEach << "]";
    }
    out
        << ", \"tcp_segment_bytes\": " << segSize << ", \"udp_payload_bytes\": " << udpPayload << "}";
    std::cout << out.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
