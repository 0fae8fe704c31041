// A minimal standard library for the checker's test inputs: the names and shapes the checker
// matches (smart pointers, optional, vector, move, exchange, swap) at a fraction of <memory>'s
// parse time.
#pragma once
#pragma clang system_header

namespace std {

using nullptr_t = decltype(nullptr);
using size_t = decltype(sizeof(0));

template <class T> struct remove_reference { using type = T; };
template <class T> struct remove_reference<T&> { using type = T; };
template <class T> struct remove_reference<T&&> { using type = T; };

template <class T>
typename remove_reference<T>::type&& move(T&& t) noexcept {
  return static_cast<typename remove_reference<T>::type&&>(t);
}
template <class T>
T&& forward(typename remove_reference<T>::type& t) noexcept {
  return static_cast<T&&>(t);
}
template <class T, class U = T>
T exchange(T& obj, U&& value) {
  T old = std::move(obj);
  obj = std::forward<U>(value);
  return old;
}
template <class T>
void swap(T& a, T& b) noexcept {
  T t = std::move(a);
  a = std::move(b);
  b = std::move(t);
}

template <class T>
class shared_ptr {
 public:
  shared_ptr() noexcept {}
  shared_ptr(nullptr_t) noexcept {}
  explicit shared_ptr(T* p) : p_(p) {}
  shared_ptr(const shared_ptr& o) noexcept : p_(o.p_) {}
  shared_ptr(shared_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  ~shared_ptr() {}
  shared_ptr& operator=(const shared_ptr& o) noexcept { p_ = o.p_; return *this; }
  shared_ptr& operator=(shared_ptr&& o) noexcept { p_ = o.p_; o.p_ = nullptr; return *this; }
  void reset() noexcept { p_ = nullptr; }
  void swap(shared_ptr& o) noexcept { T* p = p_; p_ = o.p_; o.p_ = p; }
  T* get() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  T* operator->() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};
template <class T> bool operator==(const shared_ptr<T>& a, nullptr_t) { return !a; }
template <class T> bool operator!=(const shared_ptr<T>& a, nullptr_t) { return static_cast<bool>(a); }
template <class T, class... A>
shared_ptr<T> make_shared(A&&... a) { return shared_ptr<T>(new T(std::forward<A>(a)...)); }

template <class T>
class weak_ptr {
 public:
  weak_ptr() noexcept {}
  weak_ptr(const shared_ptr<T>& s) noexcept : p_(s.get()) {}
  shared_ptr<T> lock() const noexcept { return shared_ptr<T>(); }

 private:
  T* p_ = nullptr;
};

template <class T>
class unique_ptr {
 public:
  unique_ptr() noexcept {}
  unique_ptr(nullptr_t) noexcept {}
  explicit unique_ptr(T* p) : p_(p) {}
  unique_ptr(unique_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  ~unique_ptr() { delete p_; }
  unique_ptr& operator=(unique_ptr&& o) noexcept { p_ = o.p_; o.p_ = nullptr; return *this; }
  unique_ptr& operator=(nullptr_t) noexcept { p_ = nullptr; return *this; }
  void reset(T* p = nullptr) noexcept { p_ = p; }
  void swap(unique_ptr& o) noexcept { T* p = p_; p_ = o.p_; o.p_ = p; }
  T* get() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  T* operator->() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};
template <class T, class... A>
unique_ptr<T> make_unique(A&&... a) { return unique_ptr<T>(new T(std::forward<A>(a)...)); }

template <class T>
class vector {
 public:
  vector() {}
  void push_back(const T& v);
  template <class... A> void emplace_back(A&&... a);
  void clear() noexcept;
  void pop_back();
  size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  T& operator[](size_t i) { return p_[i]; }
  T& front() { return p_[0]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

struct nullopt_t {
  explicit constexpr nullopt_t(int) {}
};
inline constexpr nullopt_t nullopt{0};

template <class T>
class optional {
 public:
  optional() noexcept {}
  optional(nullopt_t) noexcept {}
  optional(const T& v) : v_(v), has_(true) {}
  optional& operator=(nullopt_t) noexcept { has_ = false; return *this; }
  optional& operator=(const T& v) { v_ = v; has_ = true; return *this; }
  void reset() noexcept { has_ = false; }
  bool has_value() const noexcept { return has_; }
  T& value() { return v_; }
  T* operator->() { return &v_; }
  T& operator*() { return v_; }
  explicit operator bool() const noexcept { return has_; }

 private:
  T v_{};
  bool has_ = false;
};

[[noreturn]] void abort() noexcept;

}  // namespace std
