#include "analysis/output_guard.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "analysis/hdf5_file.h"
#include "tests/analysis/child_process.h"
#include "tests/analysis/hdf5_test_support.h"

namespace spatialsim::analysis {
namespace {

namespace fs = std::filesystem;

class SameFileTest : public testing::ScratchDirTest {};

TEST_F(SameFileTest, SpellingsOfOnePathAreOneFile) {
  EXPECT_TRUE(same_file(path("a.h5"), path("a.h5")));  // neither exists: by path
  EXPECT_TRUE(same_file(path("a.h5"), path("sub/../a.h5")));
  EXPECT_TRUE(same_file(path("a.h5"), (m_dir / "." / "a.h5").string()));
  EXPECT_FALSE(same_file(path("a.h5"), path("b.h5")));
  std::ofstream(path("a.h5")) << "x";
  EXPECT_FALSE(same_file(path("a.h5"), path("b.h5")));  // one exists
}

TEST_F(SameFileTest, LinksToOneFileAreOneFile) {
  std::ofstream(path("config.ini")) << "x";
  std::filesystem::create_symlink(path("config.ini"), path("soft.ini"));
  std::filesystem::create_hard_link(path("config.ini"), path("hard.ini"));
  EXPECT_TRUE(same_file(path("soft.ini"), path("config.ini")));
  EXPECT_TRUE(same_file(path("hard.ini"), path("config.ini")));
  std::filesystem::create_directory(path("dir"));
  std::filesystem::create_directory_symlink(path("dir"), path("link"));
  EXPECT_TRUE(same_file(path("link/new.h5"), path("dir/new.h5")));  // neither exists: links resolved
}

// An output is written through a link to where it points, even when nothing is there yet: a dangling link
// to the other output's name is that output (--chrome-trace=link --out=o.h5 wrote the JSON over o.h5).
TEST_F(SameFileTest, ADanglingLinkIsTheFileItPointsTo) {
  std::filesystem::create_symlink("o.h5", path("link_to_out"));  // relative: beside the link
  EXPECT_TRUE(same_file(path("link_to_out"), path("o.h5")));
  EXPECT_TRUE(same_file(path("o.h5"), path("link_to_out")));
  std::filesystem::create_symlink("link_to_out", path("link_to_link"));  // a chain of two
  EXPECT_TRUE(same_file(path("link_to_link"), path("o.h5")));
  EXPECT_FALSE(same_file(path("link_to_out"), path("other.h5")));
  std::ofstream(path("o.h5")) << "x";  // and once the file exists, as before
  EXPECT_TRUE(same_file(path("link_to_link"), path("o.h5")));
}

class OutputPathTest : public testing::ScratchDirTest {};

// --------------------------------------------------------------------------------- check_output_path

TEST_F(OutputPathTest, CheckOutputPathAcceptsANewFileAndLeavesNothing) {
  EXPECT_NO_THROW(check_output_path(path("run.h5")));
  EXPECT_TRUE(dir_entries().empty());
  std::ofstream(path("old.h5")) << "x";
  EXPECT_NO_THROW(check_output_path(path("old.h5")));  // will be replaced by the rename
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"old.h5"});
}

std::string output_path_message(const std::string& p, std::string_view key = "out",
                                std::string_view example = "spatialsim.h5") {
  try {
    check_output_path(p, key, example);
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), p);
    return e.what();
  }
  return "(no error)";
}

TEST_F(OutputPathTest, CheckOutputPathMissingDirectory) {
  const std::string dir = path("nope");
  EXPECT_EQ(output_path_message(dir + "/x.h5"), "out = \"" + dir + "/x.h5\": directory " + dir +
                                                    " does not exist; give a path in a writable directory");
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(OutputPathTest, CheckOutputPathDirectoryAsPath) {
  const std::string message = output_path_message(m_dir.string());
  EXPECT_NE(message.find("is a directory"), std::string::npos) << message;
  EXPECT_NE(message.find("spatialsim.h5"), std::string::npos) << message;  // what to do instead
  fs::create_directory(path("sub"));
  EXPECT_NE(output_path_message(path("sub/")).find("is a directory"), std::string::npos);
}

// A trailing '/' names a directory: the message says what is there instead, not "is a directory".
TEST_F(OutputPathTest, CheckOutputPathTrailingSlashOnAFileOrNothing) {
  std::ofstream(path("afile")) << "x";
  EXPECT_EQ(output_path_message(path("afile/")),
            "out = \"" + path("afile/") + "\": ends in '/', which names a directory, but " + path("afile") +
                " is not a directory; give a file name without the '/', such as " + path("spatialsim.h5"));
  EXPECT_EQ(output_path_message(path("new/"), "chrome_trace", "trace.json"),
            "chrome_trace = \"" + path("new/") + "\": ends in '/', which names a directory, but " +
                path("new") +
                " does not exist; create it first, or give a file name in an existing directory, such as " +
                path("trace.json"));
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"afile"});
}

TEST_F(OutputPathTest, CheckOutputPathFileUsedAsDirectory) {
  std::ofstream(path("existing_file")) << "x";
  const std::string message = output_path_message(path("existing_file/x.h5"), "trace.out");
  EXPECT_EQ(message, "trace.out = \"" + path("existing_file/x.h5") + "\": " + path("existing_file") +
                         " is not a directory; give a path in a writable directory");
}

TEST_F(OutputPathTest, CheckOutputPathUnwritableDirectory) {
  // Tests run as root, which ignores permission bits: /proc refuses new files whoever asks.
  const std::string message = output_path_message("/proc/x.h5");
  EXPECT_NE(message.find("cannot create files in directory /proc"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists("/proc/x.h5"));
}

// A file name of 253 bytes is legal (NAME_MAX is 255): the probe and the temporary file must not append
// to it past the limit (the probe's "<name>.probe-<pid>" made check_writable refuse the directory).
TEST_F(OutputPathTest, ALongLegalFileNameIsWritable) {
  const std::string name(253, 'a');
  EXPECT_NO_THROW(check_output_path(path(name)));
  EXPECT_TRUE(dir_entries().empty());
  Hdf5File file(path(name));
  file.write_scalar("/x", std::uint64_t{7}, "1");
  file.commit();
  EXPECT_EQ(dir_entries(), std::vector<std::string>{name});
}

// A symbolic link is looked at, not followed: a link to a process's stdout (or /dev/stdout) is refused, and
// a link to a regular file is written through, so the file gets the results and the link stays a link.
TEST_F(OutputPathTest, CheckOutputPathRefusesALinkIntoProc) {
  fs::create_symlink("/proc/self/fd/1", path("stdout_link"));
  const std::string message = output_path_message(path("stdout_link"));
  EXPECT_NE(message.find("is a symbolic link to /proc/self/fd/1"), std::string::npos) << message;
  EXPECT_NE(message.find("give a regular file or a new file name"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_symlink(path("stdout_link")));
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"stdout_link"});
}

TEST_F(OutputPathTest, CheckOutputPathRefusesALinkToADirectoryOrADevice) {
  fs::create_directory(path("sub"));
  fs::create_directory_symlink(path("sub"), path("dir_link"));
  fs::create_symlink("/dev/null", path("null_link"));
  EXPECT_NE(output_path_message(path("dir_link")).find("is a directory"), std::string::npos);
  const std::string message = output_path_message(path("null_link"));
  EXPECT_NE(message.find("is a symbolic link to /dev/null"), std::string::npos) << message;
}

TEST_F(OutputPathTest, ALinkToARegularFileIsWrittenThroughAndStaysALink) {
  fs::create_directory(path("sub"));
  std::ofstream(path("sub/target.h5")) << "old";
  fs::create_symlink("sub/target.h5", path("link.h5"));  // relative, like `ln -s sub/target.h5 link.h5`
  fs::create_symlink(path("sub/new.h5"), path("dangling.h5"));
  EXPECT_NO_THROW(check_output_path(path("link.h5")));
  EXPECT_NO_THROW(check_output_path(path("dangling.h5")));
  for (const char* name : {"link.h5", "dangling.h5"}) {
    Hdf5File file(path(name));
    file.write_scalar("/x", std::uint64_t{7}, "1");
    file.commit();
    EXPECT_TRUE(fs::is_symlink(path(name))) << name;
  }
  for (const char* name : {"sub/target.h5", "sub/new.h5"}) {
    H5::H5File in(path(name), H5F_ACC_RDONLY);  // an HDF5 file now
    EXPECT_TRUE(in.nameExists("/x")) << name;
  }
}

TEST_F(OutputPathTest, CheckOutputPathRefusesEmptyAndSpecialFiles) {
  EXPECT_NE(output_path_message("").find("empty path"), std::string::npos);
  EXPECT_NE(output_path_message("/dev/null").find("not a regular file"), std::string::npos);
}

TEST(PartialOutputGuard, RegistersUntilReleasedOrDestroyed) {
  const std::size_t before = PartialOutputGuard::registered_count();
  {
    PartialOutputGuard a("/tmp/a.h5.tmp-1", "/tmp/a.h5");
    PartialOutputGuard b("/tmp/b.h5.tmp-1", "/tmp/b.h5");
    EXPECT_EQ(PartialOutputGuard::registered_count(), before + 2);
    a.release();
    EXPECT_FALSE(a.active());
    EXPECT_EQ(PartialOutputGuard::registered_count(), before + 1);
    a.release();  // twice is harmless
  }
  EXPECT_EQ(PartialOutputGuard::registered_count(), before);
}

TEST(PartialOutputGuard, RefusesTheSameTemporaryTwice) {
  PartialOutputGuard a("/tmp/a.h5.tmp-1", "/tmp/a.h5");
  EXPECT_THROW(PartialOutputGuard("/tmp/a.h5.tmp-1", "/tmp/a.h5"), OutputError);
  a.release();
  EXPECT_NO_THROW(PartialOutputGuard("/tmp/a.h5.tmp-1", "/tmp/a.h5"));  // free again
}

TEST(PartialOutputGuard, TableIsBoundedAndSlotsAreReused) {
  const std::size_t before = PartialOutputGuard::registered_count();
  std::vector<std::unique_ptr<PartialOutputGuard>> guards;
  for (std::size_t i = before; i < kMaxPartialOutputs; ++i) {
    guards.push_back(std::make_unique<PartialOutputGuard>("/tmp/x" + std::to_string(i), "/tmp/y"));
  }
  try {
    PartialOutputGuard extra("/tmp/one-too-many", "/tmp/final.h5");
    ADD_FAILURE() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), "/tmp/final.h5");
    EXPECT_NE(std::string(e.what()).find("at once"), std::string::npos) << e.what();
  }
  guards.pop_back();
  EXPECT_NO_THROW(PartialOutputGuard("/tmp/fits-again", "/tmp/final.h5"));
}

TEST(PartialOutputGuard, RefusesPathsTheHandlerCannotHold) {
  const std::string long_path(kMaxPartialOutputPath + 1, 'x');
  EXPECT_THROW(PartialOutputGuard(long_path + ".tmp-1", long_path), OutputError);
  const std::string longest(kMaxPartialOutputPath, 'y');
  EXPECT_NO_THROW(PartialOutputGuard(longest, "/tmp/z"));
}

TEST(PartialOutputGuard, InstallIsIdempotent) {
  // Only installs in a child: the test process itself keeps the default dispositions. Installing twice
  // must not stack handlers (there is nothing to observe except that it does not crash).
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        install_interrupt_handlers();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// ------------------------------------------------------------------------------- the interrupt note

class InterruptNoteTest : public testing::ScratchDirTest {};

// After the partial outputs, the note: how many units are finished and kept, and how to run the rest, on a
// line of its own below a progress line.
TEST_F(InterruptNoteTest, SaysWhatIsKeptAndHowToGoOn) {
  const std::string dir = path("s.h5.points");
  const testing::ChildResult child = testing::run_child([&] {
    ::signal(SIGINT, SIG_DFL);
    install_interrupt_handlers();
    fs::create_directories(dir);
    std::ofstream(dir + "/done.h5") << "x";
    InterruptNote note(12, "job", "jobs", "the same command with --sweep.resume", dir);
    note.set_finished(3);
    const char progress[] = "\rjobs 3/12";  // a progress line, not ended: the note starts below it
    ASSERT_EQ(::write(STDERR_FILENO, progress, sizeof progress - 1),
              static_cast<ssize_t>(sizeof progress - 1));
    set_stderr_line_open(true);
    ::raise(SIGINT);
  });
  ASSERT_TRUE(WIFSIGNALED(child.status)) << child.status << ": " << child.stderr_text;
  EXPECT_EQ(WTERMSIG(child.status), SIGINT);
  EXPECT_EQ(child.stderr_text,
            "\rjobs 3/12\nspatialsim: interrupted with 3 of 12 jobs finished and kept; the same command with "
            "--sweep.resume runs only the other 9\n");
  EXPECT_TRUE(fs::exists(dir + "/done.h5"));
}

// None finished: nothing kept, and the directory made for the units goes if it is empty (as when the
// command fails); one unit is named in the singular.
TEST_F(InterruptNoteTest, NoneFinishedRemovesTheEmptyDirectoryItMade) {
  for (const std::uint64_t total : {5u, 1u}) {
    const std::string dir = path("made.points");
    const testing::ChildResult child = testing::run_child([&] {
      ::signal(SIGTERM, SIG_DFL);
      install_interrupt_handlers();
      fs::create_directories(dir);
      InterruptNote note(total, "job", "jobs", "again", dir);
      ::raise(SIGTERM);
    });
    ASSERT_TRUE(WIFSIGNALED(child.status)) << child.status << ": " << child.stderr_text;
    EXPECT_EQ(WTERMSIG(child.status), SIGTERM);
    EXPECT_EQ(child.stderr_text, total == 1
                                     ? "spatialsim: interrupted before its job finished; nothing was kept\n"
                                     : "spatialsim: interrupted before any of the 5 jobs finished; "
                                       "nothing was kept\n");
    EXPECT_FALSE(fs::exists(dir));
  }
}

// All finished: interrupted while their results were being written; nothing runs again.
TEST_F(InterruptNoteTest, AllFinishedSaysNoneRunsAgain) {
  for (const std::uint64_t total : {20u, 1u}) {
    const testing::ChildResult child = testing::run_child([&] {
      ::signal(SIGHUP, SIG_DFL);
      install_interrupt_handlers();
      InterruptNote note(total, "job", "jobs", "the same command with --sweep.resume", "");
      note.set_finished(total);
      ::raise(SIGHUP);
    });
    ASSERT_TRUE(WIFSIGNALED(child.status)) << child.status << ": " << child.stderr_text;
    EXPECT_EQ(child.stderr_text, total == 1
                                     ? "spatialsim: interrupted with its job finished and kept; the same "
                                       "command with --sweep.resume does not run it again\n"
                                     : "spatialsim: interrupted with all 20 jobs finished and kept; the "
                                       "same command with --sweep.resume runs none of them again\n");
  }
}

// Two signals at once (timeout(1) signals the process and then its group; Ctrl-C and a SIGTERM) reach two
// threads, whose handlers both ran and wrote their lines into each other. One handler speaks; a second waits
// for the process to die by the first one's signal.
TEST_F(InterruptNoteTest, TwoSignalsAtOnceGiveOneNote) {
  for (int round = 0; round < 20; ++round) {
    const testing::ChildResult child = testing::run_child([&] {
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      install_interrupt_handlers();
      InterruptNote note(20, "job", "jobs", "the same command with --sweep.resume", "");
      note.set_finished(7);
      std::atomic<int> spinning{0};
      const auto spin = [&] {
        spinning.fetch_add(1);
        for (;;) std::atomic_signal_fence(std::memory_order_seq_cst);
      };
      std::thread a(spin), b(spin);
      sigset_t handled;
      sigemptyset(&handled);
      sigaddset(&handled, SIGINT);
      sigaddset(&handled, SIGTERM);
      ::pthread_sigmask(SIG_BLOCK, &handled, nullptr);  // this thread only sends: the spinners handle them
      while (spinning.load() < 2) std::this_thread::yield();
      ::kill(::getpid(), SIGINT);
      ::kill(::getpid(), SIGTERM);
      for (;;) ::pause();
    });
    ASSERT_TRUE(WIFSIGNALED(child.status)) << child.status << ": " << child.stderr_text;
    EXPECT_EQ(child.stderr_text,
              "spatialsim: interrupted with 7 of 20 jobs finished and kept; the same command with "
              "--sweep.resume runs only the other 13\n")
        << "round " << round;
  }
}

// Once released (the command's output is complete) an interrupt says nothing more; one note at a time.
TEST_F(InterruptNoteTest, SaysNothingOnceReleasedAndIsOneAtATime) {
  const testing::ChildResult child = testing::run_child([&] {
    ::signal(SIGINT, SIG_DFL);
    install_interrupt_handlers();
    { InterruptNote note(2, "job", "jobs", "again", ""); }
    ::raise(SIGINT);
  });
  ASSERT_TRUE(WIFSIGNALED(child.status)) << child.status;
  EXPECT_EQ(child.stderr_text, "");
  InterruptNote first(1, "job", "jobs", "again", "");
  EXPECT_THROW(InterruptNote(1, "job", "jobs", "again", ""), std::logic_error);
}

}  // namespace
}  // namespace spatialsim::analysis
