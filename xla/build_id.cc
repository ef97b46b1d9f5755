#include "xla/build_id.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

#include "absl/strings/escaping.h"

namespace xla {
namespace {

struct Search {
  uintptr_t address;  // of code in the object whose id is wanted
  std::string id;     // hex, once found
};

// Aligns a note field's size to the 4 bytes ELF notes are padded to.
size_t NotePadded(size_t n) { return (n + 3) & ~size_t{3}; }

// dl_iterate_phdr's callback: in the loaded object containing
// search->address, reads the NT_GNU_BUILD_ID note of its PT_NOTE segments.
int FindBuildId(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && search->address >= start && search->address < start + ph.p_memsz) contains = true;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof(note));
      const char* name = p + sizeof(note);
      if (NotePadded(note.n_namesz) > static_cast<size_t>(end - name)) break;
      const char* desc = name + NotePadded(note.n_namesz);
      if (note.n_descsz > static_cast<size_t>(end - desc)) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        search->id = absl::BytesToHexString(absl::string_view(desc, note.n_descsz));
        return 1;
      }
      p = desc + NotePadded(note.n_descsz);
    }
  }
  return 1;  // the object was found; it has no build id
}

}  // namespace

const std::string& BuildId() {
  static const std::string* id = [] {
    Search search{reinterpret_cast<uintptr_t>(&BuildId), ""};
    dl_iterate_phdr(&FindBuildId, &search);
    return new std::string(search.id);
  }();
  return *id;
}

}  // namespace xla
