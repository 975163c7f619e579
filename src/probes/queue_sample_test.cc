// The queue sample's readers on a tree of files: the device's byte queue limits, and what a
// captured tree cannot hold.
#include "probes/queue_sample.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace nicbench::probes {
namespace {

namespace fs = std::filesystem;

class Tree {
 public:
  Tree() : root_(fs::temp_directory_path() / ("nb-queues-" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
  }
  ~Tree() { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text;
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST(QueueSample, BqlInflightIsSummedOverTheTransmitQueues) {
  Tree tree;
  tree.Write("sys/class/net/eth0/queues/tx-0/byte_queue_limits/inflight", "3028\n");
  tree.Write("sys/class/net/eth0/queues/tx-1/byte_queue_limits/inflight", "1514\n");
  tree.Write("sys/class/net/eth0/queues/rx-0/rps_cpus", "0\n");
  DirFileSource files(tree.root());
  const auto inflight = ReadBqlInflight(files, "eth0");
  ASSERT_TRUE(inflight.known()) << inflight.detail();
  EXPECT_EQ(inflight.value(), 4542u);
}

TEST(QueueSample, ADeviceWithoutBqlIsUnknownWithWhyNeverZero) {
  Tree tree;
  tree.Write("sys/class/net/veth0/queues/tx-0/xps_cpus", "0\n");  // veth: no byte_queue_limits
  DirFileSource files(tree.root());
  const auto inflight = ReadBqlInflight(files, "veth0");
  EXPECT_FALSE(inflight.known());
  EXPECT_NE(inflight.detail().find("no byte queue limits on veth0"), std::string::npos);
  EXPECT_FALSE(ReadBqlInflight(files, "missing0").known());
}

TEST(QueueSample, ACapturedTreeHoldsNoBacklog) {
  Tree tree;
  tree.Write("sys/class/net/eth0/queues/tx-0/byte_queue_limits/inflight", "0\n");
  DirFileSource files(tree.root());
  ASSERT_FALSE(files.IsLive());
  const auto sample = ReadQueueSample(files, "eth0");
  EXPECT_FALSE(sample.known());
  EXPECT_NE(sample.detail().find("captured tree"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::probes
