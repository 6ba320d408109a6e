#ifndef NEARDUP_TESTS_SUPPORT_SLURM_CLUSTER_H_
#define NEARDUP_TESTS_SUPPORT_SLURM_CLUSTER_H_

// A real single-node Slurm (Debian's slurm-wlm and munge) for tests, in a
// temp dir on free ports: munged with a key of its own, slurmctld and one
// slurmd for this machine (2 CPUs). SLURM_CONF is set for this process, so
// sbatch, squeue and scancel (and processes started from here) use it.
// Stopped by process id when destroyed.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/net.h"
#include "support/run_command.h"
#include "support/wait.h"

namespace neardup::testing {

class SlurmCluster {
 public:
  explicit SlurmCluster(std::string dir) : dir_(std::move(dir)) {}
  ~SlurmCluster() {
    // The daemons first, munged last (they talk to it while they stop).
    for (auto it = pids_.rbegin(); it != pids_.rend(); ++it) {
      ::kill(*it, SIGTERM);
      for (int i = 0; i < 100 && ::waitpid(*it, nullptr, WNOHANG) == 0; ++i) {
        ::usleep(50'000);
      }
      ::kill(*it, SIGKILL);
      ::waitpid(*it, nullptr, 0);
    }
  }

  // Starts it; false with the reason in why() where it cannot (the
  // binaries are missing, or slurmd cannot run as this user).
  bool Start(std::chrono::milliseconds timeout) {
    for (const char* binary : {"/usr/sbin/munged", "/usr/sbin/slurmctld",
                               "/usr/sbin/slurmd", "/usr/bin/sbatch"}) {
      if (::access(binary, X_OK) != 0) {
        why_ = absl::StrCat(binary,
                            " is missing (Debian packages slurmctld, slurmd, "
                            "slurm-client and munge)");
        return false;
      }
    }
    if (::geteuid() != 0) {
      why_ = "slurmd runs jobs as their users only as root";
      return false;
    }
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    std::string node = host;
    node = node.substr(0, node.find('.'));
    for (const char* sub : {"/munge", "/state", "/spool", "/log"}) {
      std::filesystem::create_directories(dir_ + sub);
    }
    std::filesystem::permissions(dir_ + "/munge",
                                 std::filesystem::perms::owner_all);
    {
      std::mt19937_64 random{std::random_device{}()};
      std::ofstream key(dir_ + "/munge/munge.key", std::ios::binary);
      for (int i = 0; i < 128; ++i) key.put(static_cast<char>(random()));
    }
    std::filesystem::permissions(dir_ + "/munge/munge.key",
                                 std::filesystem::perms::owner_read |
                                     std::filesystem::perms::owner_write);
    const std::string socket = dir_ + "/munge/munge.sock";
    const std::string conf = dir_ + "/slurm.conf";
    std::ofstream(conf) << absl::StrCat(
        "ClusterName=neardup-test\n"
        "SlurmctldHost=",
        node,
        "(127.0.0.1)\n"
        "SlurmctldPort=",
        FreePort(), "\nSlurmdPort=", FreePort(),
        "\n"
        "SlurmUser=root\nSlurmdUser=root\n"
        "AuthType=auth/munge\nCredType=cred/munge\n"
        "AuthInfo=socket=",
        socket,
        "\n"
        "StateSaveLocation=",
        dir_,
        "/state\n"
        "SlurmdSpoolDir=",
        dir_,
        "/spool\n"
        "SlurmctldPidFile=",
        dir_,
        "/slurmctld.pid\n"
        "SlurmdPidFile=",
        dir_,
        "/slurmd.pid\n"
        "SlurmctldLogFile=",
        dir_,
        "/log/slurmctld.log\n"
        "SlurmdLogFile=",
        dir_,
        "/log/slurmd.log\n"
        "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
        "SchedulerType=sched/builtin\n"
        "ReturnToService=2\nMpiDefault=none\nJobCompType=jobcomp/none\n"
        "AccountingStorageType=accounting_storage/none\n"
        "JobAcctGatherType=jobacct_gather/none\n"
        "NodeName=",
        node,
        " NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n"
        "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE "
        "State=UP\n");
    ::setenv("SLURM_CONF", conf.c_str(), 1);
    Spawn({"/usr/sbin/munged", "-F", "--force", "--socket=" + socket,
           "--key-file=" + dir_ + "/munge/munge.key",
           "--log-file=" + dir_ + "/log/munged.log",
           "--pid-file=" + dir_ + "/munge/munged.pid",
           "--seed-file=" + dir_ + "/munge/seed"},
          "munged");
    if (!WaitUntil([&] { return std::filesystem::exists(socket); }, timeout)) {
      why_ = "munged did not start: " + Logs();
      return false;
    }
    Spawn({"/usr/sbin/slurmctld", "-D", "-i"}, "slurmctld");
    Spawn({"/usr/sbin/slurmd", "-D"}, "slurmd");
    if (!WaitUntil(
            [&] {
              return RunCommand("sinfo -h -o %T").out.find("idle") !=
                     std::string::npos;
            },
            timeout)) {
      why_ = "the Slurm node did not come up: " + Logs();
      return false;
    }
    return true;
  }

  const std::string& why() const { return why_; }

  std::string Logs() const {
    std::string out;
    for (const char* name : {"munged.out", "slurmctld.out", "slurmd.out",
                             "slurmctld.log", "slurmd.log"}) {
      absl::StrAppend(&out, "--- ", name, "\n",
                      FileContents(dir_ + "/log/" + name));
    }
    return out;
  }

 private:
  void Spawn(std::vector<std::string> args, const std::string& name) {
    const std::string log = dir_ + "/log/" + name + ".out";
    // Made before fork: a threaded process's child may only call
    // async-signal-safe functions.
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the test
      if (out < 0) ::_exit(126);
      ::dup2(out, STDOUT_FILENO);
      ::dup2(out, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    if (out >= 0) ::close(out);
    if (pid > 0) pids_.push_back(pid);
  }

  std::string dir_;
  std::string why_;
  std::vector<pid_t> pids_;
};

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_SLURM_CLUSTER_H_
